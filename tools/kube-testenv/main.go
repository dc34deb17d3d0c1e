// Command kube-testenv runs a real Kubernetes API server (kube-apiserver
// with an embedded etcd, in this one process) on 127.0.0.1 for gamma-rs
// tests, installs the Gateway API CRDs of one release channel, writes an
// admin kubeconfig, prints `ready` on stdout, and stops (removing its temp
// dir) on SIGTERM/SIGINT or when its stdin closes.
//
// Run it through ./start, which builds it once and caches the binary.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	_ "time/tzdata" // CronJob time zones validate without a host tz database, as in kube-apiserver

	"go.etcd.io/etcd/server/v3/embed"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
)

func main() {
	os.Exit(run())
}

type settings struct {
	kubeconfig  string
	channel     string
	crdDir      string
	ignoreStdin bool
	dataDir     string
	port        int
	watchCache  bool
	// Passed through to kube-apiserver when set: which built-in APIs it serves
	// beyond (or short of) its defaults.
	runtimeConfig string
	featureGates  string
}

func parseSettings() (*settings, error) {
	s := &settings{}
	fs := flag.NewFlagSet("kube-testenv", flag.ContinueOnError)
	fs.StringVar(&s.kubeconfig, "kubeconfig", "", "path to write the admin kubeconfig to (required)")
	fs.StringVar(&s.channel, "channel", "standard", "Gateway API release channel whose CRDs are installed: standard or experimental")
	fs.StringVar(&s.crdDir, "crd-dir", "", "directory of CRD manifests to install (default $GAMMA_UPSTREAM_DIR/config/crd/<channel>)")
	fs.BoolVar(&s.ignoreStdin, "ignore-stdin", false, "do not stop when stdin closes (for running in the background by hand)")
	fs.StringVar(&s.dataDir, "data-dir", "", "keep the server's state (etcd data, credentials, ports) in this directory and reuse it on the next start: a restart is the same cluster at the same URL (default: a fresh temp dir, removed at stop)")
	fs.IntVar(&s.port, "port", 0, "the API server's port on 127.0.0.1 (default: a free port; with --data-dir, the first run's)")
	fs.BoolVar(&s.watchCache, "watch-cache", true, "kube-apiserver --watch-cache: false serves every watch from etcd, so that compacting etcd (the `compact` stdin command) expires watches with 410 Gone")
	fs.StringVar(&s.runtimeConfig, "runtime-config", "", "kube-apiserver --runtime-config (comma-separated group/version[/resource]=true|false), e.g. certificates.k8s.io/v1beta1/clustertrustbundles=true to serve a beta API the server leaves off by default (default: kube-apiserver's own)")
	fs.StringVar(&s.featureGates, "feature-gates", "", "kube-apiserver --feature-gates (comma-separated Gate=true|false), e.g. ClusterTrustBundle=false (default: kube-apiserver's own)")
	if err := fs.Parse(os.Args[1:]); err != nil {
		return nil, err
	}
	if fs.NArg() != 0 {
		return nil, fmt.Errorf("unexpected arguments: %v", fs.Args())
	}
	if s.kubeconfig == "" {
		return nil, errors.New("--kubeconfig PATH is required")
	}
	if s.port < 0 || s.port > 65535 {
		return nil, fmt.Errorf("--port must be a TCP port, not %d", s.port)
	}
	if s.channel != "standard" && s.channel != "experimental" {
		return nil, fmt.Errorf("--channel must be standard or experimental, not %q", s.channel)
	}
	if s.crdDir == "" {
		upstream := os.Getenv("GAMMA_UPSTREAM_DIR")
		if upstream == "" {
			return nil, errors.New("GAMMA_UPSTREAM_DIR is not set (the Gateway API v1.6.1 release tree whose config/crd/<channel>/ is installed); or pass --crd-dir")
		}
		s.crdDir = filepath.Join(upstream, "config", "crd", s.channel)
	}
	return s, nil
}

func run() int {
	defer klog.Flush()
	s, err := parseSettings()
	if err != nil {
		fmt.Fprintf(os.Stderr, "kube-testenv: %v\n", err)
		return 2
	}
	// Read the CRDs before starting anything, so a bad directory fails fast.
	crds, err := readCRDs(s.crdDir)
	if err != nil {
		fmt.Fprintf(os.Stderr, "kube-testenv: %v\n", err)
		return 1
	}

	var dir string
	if s.dataDir != "" {
		// Kept at stop: the next start on it is a restart.
		dir = s.dataDir
		if err := os.MkdirAll(dir, 0o700); err != nil {
			fmt.Fprintf(os.Stderr, "kube-testenv: %v\n", err)
			return 1
		}
	} else {
		tmp, err := os.MkdirTemp("", "kube-testenv-")
		if err != nil {
			fmt.Fprintf(os.Stderr, "kube-testenv: %v\n", err)
			return 1
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	removeOnExit := ""
	if s.dataDir == "" {
		removeOnExit = dir
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	commands := make(chan string)
	watchStop(cancel, removeOnExit, s.ignoreStdin, commands)

	if err := serve(ctx, cancel, s, crds, dir, commands); err != nil {
		fmt.Fprintf(os.Stderr, "kube-testenv: %v\n", err)
		return 1
	}
	return 0
}

// watchStop cancels ctx on SIGTERM/SIGINT or when stdin reaches EOF (the
// parent closed the pipe or died). A second signal exits at once, still
// removing the temp dir (tmp; "" for none). Lines read from stdin are sent
// to commands.
func watchStop(cancel context.CancelFunc, tmp string, ignoreStdin bool, commands chan<- string) {
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		sig := <-signals
		klog.Infof("kube-testenv: %v: stopping", sig)
		cancel()
		<-signals
		if tmp != "" {
			os.RemoveAll(tmp)
		}
		os.Exit(1)
	}()
	if ignoreStdin {
		return
	}
	go func() {
		lines := bufio.NewScanner(os.Stdin)
		for lines.Scan() {
			commands <- strings.TrimSpace(lines.Text())
		}
		klog.Infof("kube-testenv: stdin closed: stopping")
		cancel()
	}()
}

// serve starts etcd and the API server, installs the CRDs, writes the
// kubeconfig, announces `ready` and runs until ctx is cancelled; then it
// stops the API server, waits for it, and stops etcd.
func serve(ctx context.Context, cancel context.CancelFunc, s *settings, crds []*apiextensionsv1.CustomResourceDefinition, dir string, commands <-chan string) error {
	started := time.Now()
	previous, err := loadState(dir)
	if err != nil {
		return err
	}
	var creds *credentials
	var etcdPorts []int
	apiPort := s.port
	if previous != nil {
		klog.Infof("kube-testenv: restarting on the state in %s", dir)
		creds = existingCredentials(dir, previous)
		etcdPorts = []int{previous.EtcdClientPort, previous.EtcdPeerPort}
		if apiPort == 0 {
			apiPort = previous.APIPort
		}
	} else if creds, err = writeCredentials(dir); err != nil {
		return fmt.Errorf("credentials: %w", err)
	}
	etcd, etcdPorts, stopEtcd, err := startEtcd(dir, etcdPorts)
	if err != nil {
		return err
	}
	defer stopEtcd()

	listener, err := listen(apiPort)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	port := listener.Addr().(*net.TCPAddr).Port
	if s.dataDir != "" {
		state := &persisted{APIPort: port, EtcdClientPort: etcdPorts[0], EtcdPeerPort: etcdPorts[1], CAPEM: creds.caPEM, AdminToken: creds.adminToken}
		if err := saveState(dir, state); err != nil {
			listener.Close()
			return fmt.Errorf("save state: %w", err)
		}
	}
	serverCtx, stopServer := context.WithCancel(context.Background())
	defer stopServer()
	done, err := startAPIServer(serverCtx, listener, apiServerFlags(etcdURL(etcdPorts[0]), creds, port, s))
	if err != nil {
		listener.Close()
		return fmt.Errorf("kube-apiserver: %w", err)
	}
	// From here on the API server must be stopped and waited for before
	// etcd goes away. An API server that exits by itself ends the run.
	var runErr error
	exited := make(chan struct{})
	go func() {
		runErr = <-done
		close(exited)
		cancel()
	}()
	defer func() {
		stopServer()
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			klog.Errorf("kube-testenv: kube-apiserver did not stop within 30s")
		}
	}()

	admin := &rest.Config{
		Host:            fmt.Sprintf("https://127.0.0.1:%d", port),
		BearerToken:     creds.adminToken,
		TLSClientConfig: rest.TLSClientConfig{CAData: creds.caPEM},
		QPS:             100,
		Burst:           200,
	}
	if err := waitReady(ctx, admin); err != nil {
		return exitedFirst(exited, &runErr, err)
	}
	if err := installCRDs(ctx, admin, crds); err != nil {
		return exitedFirst(exited, &runErr, err)
	}
	if err := writeKubeconfig(s.kubeconfig, admin, creds); err != nil {
		return fmt.Errorf("write kubeconfig: %w", err)
	}
	klog.Infof("kube-testenv: ready in %v: %s, channel %s, kubeconfig %s", time.Since(started).Round(time.Millisecond), admin.Host, s.channel, s.kubeconfig)
	if _, err := fmt.Fprintln(os.Stdout, "ready"); err != nil {
		return err
	}

wait:
	for {
		select {
		case command := <-commands:
			runCommand(ctx, command, etcd)
		case <-ctx.Done():
			break wait
		}
	}
	select {
	case <-exited:
		// The API server stopped before it was asked to.
		return fmt.Errorf("kube-apiserver exited: %v", runErr)
	default:
		return nil
	}
}

// runCommand runs one stdin command and answers on stdout with one line.
//
//	compact: compact etcd to its current revision; answers `compacted REV`.
func runCommand(ctx context.Context, command string, e *embed.Etcd) {
	switch command {
	case "":
	case "compact":
		rev, err := compact(ctx, e)
		if err != nil {
			fmt.Fprintf(os.Stdout, "error: compact: %v\n", err)
			return
		}
		klog.Infof("kube-testenv: etcd compacted to revision %d", rev)
		fmt.Fprintf(os.Stdout, "compacted %d\n", rev)
	default:
		fmt.Fprintf(os.Stdout, "error: unknown command %q (commands: compact)\n", command)
	}
}

// listen binds the API server's port on 127.0.0.1 (0: a free one). A fixed
// port is retried for a while: the previous run's socket may still be
// closing.
func listen(port int) (net.Listener, error) {
	address := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	var err error
	for attempt := 0; attempt < 50; attempt++ {
		var l net.Listener
		if l, err = net.Listen("tcp", address); err == nil || port == 0 {
			return l, err
		}
		time.Sleep(100 * time.Millisecond)
	}
	return nil, err
}

// exitedFirst reports the API server's own error when it exited (the
// cause) rather than the wait that then failed.
func exitedFirst(exited <-chan struct{}, runErr *error, err error) error {
	select {
	case <-exited:
		return fmt.Errorf("kube-apiserver exited: %v", *runErr)
	default:
		return err
	}
}

// waitReady polls /readyz until the API server reports ready (every
// post-start hook done, e.g. the bootstrap priority levels and the default
// namespace).
func waitReady(ctx context.Context, config *rest.Config) error {
	disco, err := discovery.NewDiscoveryClientForConfig(config)
	if err != nil {
		return err
	}
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 120*time.Second, true, func(ctx context.Context) (bool, error) {
		status := 0
		disco.RESTClient().Get().AbsPath("/readyz").Do(ctx).StatusCode(&status)
		return status == 200, nil
	})
	if err != nil {
		return fmt.Errorf("kube-apiserver not ready: %w", err)
	}
	return nil
}
