//go:build !unix

package lock

import "os"

// Without flock the lock is advisory only through the file's content: it
// is never refused (kgjudge's supported systems are Unix).
func tryLock(*os.File, Mode) (bool, error) { return false, nil }

func unlock(*os.File) error { return nil }

func holdersOf(f *os.File) []Holder { return holderFromFile(f) }
