//go:build unix

package lock

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"syscall"
)

func tryLock(f *os.File, mode Mode) (held bool, err error) {
	how := syscall.LOCK_SH
	if mode == Exclusive {
		how = syscall.LOCK_EX
	}
	for {
		err = syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return true, nil
	}
	return false, err
}

func unlock(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }

// holdersOf names the processes holding a flock on f's file: from
// /proc/locks where there is one (every holder, shared ones included),
// else from the file's content (the exclusive holder).
func holdersOf(f *os.File) []Holder {
	st, err := f.Stat()
	sys, ok := st.Sys().(*syscall.Stat_t)
	if err != nil || !ok {
		return holderFromFile(f)
	}
	data, err := os.ReadFile("/proc/locks")
	if err != nil {
		return holderFromFile(f)
	}
	// "1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF"; the device is
	// printed as major:minor in hex, the inode in decimal.
	wantIno := strconv.FormatUint(uint64(sys.Ino), 10)
	seen := map[int]bool{}
	var out []Holder
	for _, line := range strings.Split(string(data), "\n") {
		fs := strings.Fields(line)
		if len(fs) < 6 || fs[1] != "FLOCK" {
			continue
		}
		if fs[2] == "->" { // a waiter, not a holder
			continue
		}
		dev := strings.Split(fs[5], ":")
		if len(dev) != 3 || dev[2] != wantIno {
			continue
		}
		pid, err := strconv.Atoi(fs[4])
		// This process may be a holder too (another descriptor: two opens
		// in one process conflict like two processes).
		if err != nil || seen[pid] {
			continue
		}
		seen[pid] = true
		out = append(out, Holder{PID: pid, Command: command(pid)})
	}
	if len(out) == 0 {
		return holderFromFile(f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].PID < out[j].PID })
	return out
}

// command is the holder's command line, shortened, or "".
func command(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return ""
	}
	s := strings.TrimSpace(strings.ReplaceAll(string(b), "\x00", " "))
	if r := []rune(s); len(r) > 120 {
		s = string(r[:117]) + "..."
	}
	return s
}
