// Command gateway-api-release fetches the test data of one Gateway API release (its CRDs,
// examples, invalid examples and LICENSE) from the Go module proxy into a local cache and
// prints the folder. gamma-rs' tests use it to obtain every release tree they test against
// without a git clone; see README.md beside this file.
//
//	go run ./tools/gateway-api-release v1.7.0
//
// The module zip is fetched with `go mod download -json sigs.k8s.io/gateway-api@VERSION`,
// which works even where building that release's Go code would need a newer Go: only the
// zip is read, never compiled.
package main

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

const module = "sigs.k8s.io/gateway-api"

// The parts of the release tree the tests read; everything else in the zip is left out.
var wanted = []string{"config/crd/", "examples/", "hack/invalid-examples/", "LICENSE"}

var versionPattern = regexp.MustCompile(`^v[0-9]+\.[0-9]+\.[0-9]+$`)

func main() {
	if len(os.Args) != 2 || !versionPattern.MatchString(os.Args[1]) {
		fmt.Fprintln(os.Stderr, "usage: gateway-api-release vX.Y.Z   (prints the folder of that release's test data)")
		os.Exit(2)
	}
	dir, err := fetch(os.Args[1])
	if err != nil {
		fmt.Fprintf(os.Stderr, "gateway-api-release: %v\n", err)
		os.Exit(1)
	}
	fmt.Println(dir)
}

// cacheRoot is $GAMMA_UPSTREAM_CACHE, else the user cache folder's gamma-rs/gateway-api.
func cacheRoot() (string, error) {
	if dir := os.Getenv("GAMMA_UPSTREAM_CACHE"); dir != "" {
		return dir, nil
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(base, "gamma-rs", "gateway-api"), nil
}

func fetch(version string) (string, error) {
	root, err := cacheRoot()
	if err != nil {
		return "", err
	}
	dest := filepath.Join(root, "gateway-api-"+version)
	// The marker is written last: a folder without it is an interrupted extraction.
	if _, err := os.Stat(filepath.Join(dest, ".complete")); err == nil {
		return dest, nil
	}
	zipPath, err := download(version)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(root, ".extract-"+version+"-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	if err := extract(zipPath, module+"@"+version+"/", tmp); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(tmp, ".complete"), []byte(version+"\n"), 0o644); err != nil {
		return "", err
	}
	// Another process may have finished first: its copy is as good as ours.
	if err := os.Rename(tmp, dest); err != nil {
		if _, statErr := os.Stat(filepath.Join(dest, ".complete")); statErr == nil {
			return dest, nil
		}
		return "", err
	}
	return dest, nil
}

// download runs `go mod download -json` and returns the module zip's path. The JSON's Error
// is ignored when the zip is there: for releases whose go.mod needs a newer Go than this one
// the download succeeds and only the version check fails.
func download(version string) (string, error) {
	cmd := exec.Command("go", "mod", "download", "-json", module+"@"+version)
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local", "GOFLAGS=-mod=mod")
	cmd.Dir = os.TempDir() // outside any module
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, runErr := cmd.Output()
	var info struct {
		Zip   string
		Error string
	}
	if err := json.Unmarshal(out, &info); err != nil {
		return "", fmt.Errorf("go mod download %s@%s: %v %s", module, version, runErr, strings.TrimSpace(stderr.String()))
	}
	if info.Zip == "" {
		return "", fmt.Errorf("go mod download %s@%s: %s", module, version, info.Error)
	}
	if _, err := os.Stat(info.Zip); err != nil {
		return "", fmt.Errorf("go mod download %s@%s: no zip (%s)", module, version, info.Error)
	}
	return info.Zip, nil
}

func keep(name string) bool {
	for _, w := range wanted {
		if name == w || (strings.HasSuffix(w, "/") && strings.HasPrefix(name, w)) {
			return true
		}
	}
	return false
}

func extract(zipPath, prefix, dest string) error {
	r, err := zip.OpenReader(zipPath)
	if err != nil {
		return err
	}
	defer r.Close()
	n := 0
	for _, f := range r.File {
		name, ok := strings.CutPrefix(f.Name, prefix)
		if !ok || !keep(name) || strings.HasSuffix(name, "/") {
			continue
		}
		// Module zips never hold such names; refuse them rather than write outside dest.
		if !filepath.IsLocal(name) {
			return fmt.Errorf("%s: unsafe path %q", zipPath, f.Name)
		}
		target := filepath.Join(dest, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		if err := copyFile(f, target); err != nil {
			return err
		}
		n++
	}
	if n == 0 {
		return errors.New(zipPath + ": no config/crd, examples or hack/invalid-examples in the module zip")
	}
	return nil
}

func copyFile(f *zip.File, target string) error {
	src, err := f.Open()
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return err
	}
	return dst.Close()
}
