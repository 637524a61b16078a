// Package program is memctl's knowledge of the programs agents run, kept
// apart from any use of it: what a command line does and what a program's
// output says. It is a leaf (the standard library only, TestLeaf checks
// it), so the offline extractor (internal/extract/heuristic) and the
// stale-evidence code (internal/evidence) read commands the same way.
//
//   - table.go: the classes of programs (read, write, vcs, net, runner,
//     and the check purposes test, lint, type-check, build, check);
//   - command.go: how a command line names what it does (its family,
//     whether it only looks, checks, formats or changes git's history);
//   - shell.go: which files a shell command line writes, deletes, restores
//     or prints, and whether its exit status is its own;
//   - output.go: what a program prints: the line that states a failure,
//     the failing tests, the words that say it failed or passed, a
//     program missing or not permitted;
//   - stack.go: the language or tool a file or command belongs to.
//
// What a memory makes of it (which failure to keep, what to quote) stays
// with the caller.
package program
