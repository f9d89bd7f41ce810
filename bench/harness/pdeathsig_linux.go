package harness

import (
	"os/exec"
	"syscall"
)

// SetParentDeath makes the kernel kill cmd when this process dies, so no
// server outlives an interrupted benchmark.
func SetParentDeath(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
