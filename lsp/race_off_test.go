//go:build !race

package lsp

// raceDetector is true under -race (see race_on_test.go).
const raceDetector = false
