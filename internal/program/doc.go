// Package program is memctl's knowledge of the programs agents run, kept
// apart from any use of it: what a command line does and what a program's
// output says. It is a leaf (the standard library only, TestLeaf checks
// it), so the offline extractor (internal/extract/heuristic), the
// stale-evidence code (internal/evidence) and the regret ledger
// (internal/regret) read commands the same way.
//
//   - table.go: the words that say what a program does (reads, runs
//     subcommands, checks, and what a check verifies);
//   - command.go: how a command line names its work (its family, whether
//     it only looks, checks and what for, whether its exit status is its
//     own);
//   - shell.go: which files a command line writes, deletes, restores or
//     prints;
//   - output.go: the line of a failure's output to quote, the failing
//     tests, the commits git reported;
//   - pairing.go: a failure and the later pass of the same work, paired
//     by what ran between them;
//   - stack.go: the language or tool a file or command belongs to.
//
// What a memory makes of it stays with the caller.
package program
