package lock

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

func TestConflicts(t *testing.T) {
	for _, tc := range []struct {
		first, second Mode
		conflict      bool
	}{
		{Shared, Shared, false},
		{Shared, Exclusive, true},
		{Exclusive, Shared, true},
		{Exclusive, Exclusive, true},
	} {
		t.Run(tc.first.String()+" then "+tc.second.String(), func(t *testing.T) {
			dir := t.TempDir()
			a, err := Acquire(dir, tc.first, "score run r1")
			if err != nil {
				t.Fatal(err)
			}
			b, err := Acquire(dir, tc.second, "prune the judge cache")
			if !tc.conflict {
				if err != nil {
					t.Fatalf("second lock: %v", err)
				}
				b.Release()
				a.Release()
				return
			}
			var he *HeldError
			if !errors.As(err, &he) || !errors.Is(err, ErrHeld) {
				t.Fatalf("second lock: %T %v, want a *HeldError", err, err)
			}
			msg := err.Error()
			for _, want := range []string{"cannot prune the judge cache", dir, fmt.Sprintf("pid %d", os.Getpid()), "wait for it to finish"} {
				if !strings.Contains(msg, want) {
					t.Errorf("error %q does not say %q", msg, want)
				}
			}
			// Released, the directory is free again.
			if err := a.Release(); err != nil {
				t.Fatal(err)
			}
			c, err := Acquire(dir, tc.second, "prune the judge cache")
			if err != nil {
				t.Fatalf("after release: %v", err)
			}
			c.Release()
			if err := a.Release(); err != nil {
				t.Errorf("second Release: %v", err)
			}
		})
	}
}

// TestHolderProcess: a lock held by another process is refused with that
// process's pid, and dropped by the kernel when the process dies.
func TestHolderProcess(t *testing.T) {
	if dir := os.Getenv("KGJUDGE_LOCK_HOLD"); dir != "" {
		l, err := Acquire(dir, Mode(len(os.Getenv("KGJUDGE_LOCK_EXCL"))), "score run held-by-child")
		if err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		fmt.Println("held")
		bufio.NewReader(os.Stdin).ReadString('\n') // until the parent closes stdin
		l.Release()
		os.Exit(0)
	}
	for _, mode := range []Mode{Shared, Exclusive} {
		t.Run(mode.String(), func(t *testing.T) {
			dir := t.TempDir()
			cmd := exec.Command(os.Args[0], "-test.run=^TestHolderProcess$")
			excl := ""
			if mode == Exclusive {
				excl = "x"
			}
			cmd.Env = append(os.Environ(), "KGJUDGE_LOCK_HOLD="+dir, "KGJUDGE_LOCK_EXCL="+excl)
			stdin, _ := cmd.StdinPipe()
			stdout, _ := cmd.StdoutPipe()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			line, _ := bufio.NewReader(stdout).ReadString('\n')
			if strings.TrimSpace(line) != "held" {
				t.Fatalf("child: %q", line)
			}
			_, err := Acquire(dir, Exclusive, "prune the judge cache")
			var he *HeldError
			if !errors.As(err, &he) {
				t.Fatalf("lock held by pid %d: %v", cmd.Process.Pid, err)
			}
			if !strings.Contains(err.Error(), fmt.Sprintf("pid %d", cmd.Process.Pid)) {
				t.Errorf("error %q does not name the holder, pid %d", err, cmd.Process.Pid)
			}
			// Killed, the holder leaves no stale lock.
			cmd.Process.Kill()
			cmd.Wait()
			stdin.Close()
			deadline := time.Now().Add(5 * time.Second)
			for {
				l, err := Acquire(dir, Exclusive, "prune the judge cache")
				if err == nil {
					l.Release()
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("after the holder was killed: %v", err)
				}
				time.Sleep(10 * time.Millisecond)
			}
		})
	}
}
