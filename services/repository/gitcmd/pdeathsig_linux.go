package gitcmd

import "syscall"

// dieWithParent has the kernel kill git when the glmcp process that
// started it dies, however it dies (SIGKILL included): an interrupted
// import must not leave a fetch running on behind it. git's own helpers
// (upload-pack, index-pack) end when their pipes to it close.
func dieWithParent(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
