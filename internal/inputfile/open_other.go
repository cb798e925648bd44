//go:build !unix

package inputfile

import "os"

// Without O_NONBLOCK the type is checked before the open as well.
func openNonBlocking(path string) (*os.File, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, notRegular(path, st.Mode())
	}
	return os.Open(path)
}
