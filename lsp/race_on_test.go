//go:build race

package lsp

// raceDetector is true under -race, which slows the analyser's parsing
// several times over: the scale tests skip then (make test-lsp-scale runs
// them without it).
const raceDetector = true
