// Package program is memctl's knowledge of the programs agents run, apart from any use of it:
// what programs do (table.go), how a command line names its work (command.go), which files it
// changes, restores or prints (shell.go), what its output says (output.go) and how failures pair
// with passes (pairing.go). A leaf (TestLeaf) shared by the offline extractor and the regret ledger.
package program
