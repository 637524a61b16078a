// Package program is memctl's knowledge of the programs agents run, apart
// from any use of it: the table of what programs do (table.go), how a
// command line names its work (command.go), which files it changes,
// restores or prints (shell.go), what a program's output says (output.go)
// and how failures pair with passes (pairing.go). It is a leaf (TestLeaf),
// shared by the offline extractor and the regret ledger; what a memory
// makes of it stays with the caller.
package program
