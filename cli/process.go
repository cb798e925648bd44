package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"runtime/pprof"
	"sync/atomic"
	"syscall"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/kgjudge/kgjudge/runs"
)

// stopGrace is how long a command may take to stop after SIGINT or SIGTERM
// before the process exits anyway. Stopping there is as safe as SIGKILL,
// which every store write and the judge cache survive (a rerun resumes);
// README promises 2 s from the signal to the exit.
const stopGrace = time.Second

// interrupted is the cancel cause of a command stopped by a signal.
type interrupted struct{ sig os.Signal }

func (e *interrupted) Error() string { return "stopped by " + sigName(e.sig) }

func sigName(s os.Signal) string {
	switch s {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return s.String()
}

// signalExit is the shell's exit status for a process a signal stopped.
func signalExit(s os.Signal) int {
	if n, ok := s.(syscall.Signal); ok {
		return 128 + int(n)
	}
	return ExitInternal
}

// Exec is the kgjudge process (cmd/kgjudge and the tests' child
// processes): it runs Main with a context that SIGINT and SIGTERM cancel.
// A command stops at its next check of the context, keeping what it
// committed; if it is still busy stopGrace later (a read blocked on a FIFO,
// a long computation), or a second signal comes, the process exits at once.
// An interrupted command exits 128+signal (130 for SIGINT, 143 for SIGTERM).
func Exec(args []string, stdout, stderr io.Writer) int {
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	done := make(chan struct{})
	var sigCode atomic.Int64
	go func() {
		var s os.Signal
		select {
		case s = <-sigs:
		case <-done:
			return
		}
		code := signalExit(s)
		sigCode.Store(int64(code))
		fmt.Fprintf(stderr, "\nkgjudge: %s received: stopping\n", sigName(s))
		cancel(&interrupted{s})
		select {
		case <-done:
		case <-sigs:
			fmt.Fprintf(stderr, "kgjudge: second signal: exiting now\n")
			os.Exit(code)
		case <-time.After(stopGrace):
			fmt.Fprintf(stderr, "kgjudge: still busy %v after the signal: exiting now (the store is resumable)\n", stopGrace)
			os.Exit(code)
		}
	}()
	stopProfile := startCPUProfile(stderr)
	code := Main(ctx, args, stdout, stderr)
	stopProfile()
	close(done)
	if c := sigCode.Load(); c != 0 {
		return int(c)
	}
	return code
}

// runApp runs the app and turns whatever it ends with into an exit code: a
// panic, in the command or in one of runs' workers, is a bug (exit 1, with
// the value and the stack), never the exit 2 of bad input that Go's
// runtime would give it.
func runApp(ctx context.Context, app *ucli.App, args []string, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			code = reportBug(stderr, r, debug.Stack())
		}
	}()
	err := app.RunContext(ctx, args)
	if err == nil {
		return ExitOK
	}
	var pe *runs.PanicError
	if errors.As(err, &pe) {
		return reportBug(stderr, pe.Value, pe.Stack)
	}
	if errors.Is(err, context.Canceled) && ctx.Err() != nil {
		if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
			err = cause
		}
		fmt.Fprintf(stderr, "kgjudge: %v; what was committed stays in the store: rerun the same command to resume\n", err)
		return ExitInternal
	}
	fmt.Fprintf(stderr, "kgjudge: %v\n", err)
	return exitCodeOf(err)
}

func reportBug(stderr io.Writer, v any, stack []byte) int {
	fmt.Fprintf(stderr, "kgjudge: internal error: this is a bug in kgjudge, please report it with what follows\npanic: %v\n\n%s\n", v, stack)
	return ExitInternal
}

// startCPUProfile writes a CPU profile of the whole command to the file
// KGJUDGE_CPUPROFILE names: the benchmark-scale runs are whole processes, and
// their profile is what tells which stage to work on (go tool pprof).
func startCPUProfile(stderr io.Writer) (stop func()) {
	path := os.Getenv("KGJUDGE_CPUPROFILE")
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err == nil {
		err = pprof.StartCPUProfile(f)
	}
	if err != nil {
		fmt.Fprintf(stderr, "kgjudge: KGJUDGE_CPUPROFILE: %v\n", err)
		if f != nil {
			f.Close()
		}
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			fmt.Fprintf(stderr, "kgjudge: KGJUDGE_CPUPROFILE: %v\n", err)
		}
	}
}
