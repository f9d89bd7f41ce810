//go:build !linux

package harness

import "os/exec"

// SetParentDeath: elsewhere the peers still stop when their stdin closes.
func SetParentDeath(*exec.Cmd) {}
