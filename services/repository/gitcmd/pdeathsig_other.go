//go:build !linux

package gitcmd

import "syscall"

// dieWithParent: elsewhere git ends when its pipes to glmcp close.
func dieWithParent(*syscall.SysProcAttr) {}
