package main

import (
	"os/exec"
	"syscall"
)

// setParentDeath makes the kernel kill cmd when this process dies, so no
// server outlives an interrupted comparison.
func setParentDeath(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
