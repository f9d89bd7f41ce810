package importexport_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"gitlab.com/glmcp/glmcp/services/importexport"
)

// Ensure what a killed import left (an unpacked archive whose lock no
// process holds) is swept, and what a live one holds is not.
func TestSweepArchives(t *testing.T) {
	tmp := t.TempDir()
	mk := func(name string) string {
		dir := filepath.Join(tmp, name)
		if err := os.MkdirAll(filepath.Join(dir, "tree"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dir+".lock", nil, 0o600); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	dead, live := mk("glmcp-archive-dead"), mk("glmcp-archive-live")
	other := filepath.Join(tmp, "import-0123.git")
	if err := os.Mkdir(other, 0o700); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(live+".lock", os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	if n := importexport.SweepArchives(tmp); n != 1 {
		t.Errorf("swept %d, want 1", n)
	}
	for path, want := range map[string]bool{dead: false, dead + ".lock": false, live: true, live + ".lock": true, other: true} {
		if _, err := os.Stat(path); (err == nil) != want {
			t.Errorf("%s exists = %v, want %v", filepath.Base(path), err == nil, want)
		}
	}
	f.Close() // the live import's process ends
	if n := importexport.SweepArchives(tmp); n != 1 {
		t.Errorf("swept %d after the lock was dropped, want 1", n)
	}
	if entries, _ := os.ReadDir(tmp); len(entries) != 1 {
		t.Errorf("left %v, want only the staging directory's own entry", entries)
	}
}
