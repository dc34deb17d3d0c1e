package main

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"time"

	etcdserverpb "go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// startEtcd runs an embedded etcd member (the same server code as the etcd
// binary) with its data under dir, listening on 127.0.0.1 only. It returns
// the running member and its client and peer ports. fixed holds the ports of
// an earlier run on the same data (client, peer), or nil for free ports.
//
// etcd logs errors only. Closing the member closes its listeners, and etcd
// logs each one's accept error ("setting up serving from embedded etcd
// failed: ... closed") although nothing failed: the returned stop closes it
// with its log silenced, so that a normal stop logs no error.
func startEtcd(dir string, fixed []int) (e *embed.Etcd, ports []int, stop func(), err error) {
	level := zap.NewAtomicLevelAt(zapcore.ErrorLevel)
	logConfig := zap.NewProductionConfig()
	logConfig.Level = level
	logConfig.OutputPaths = []string{"stderr"}
	logConfig.ErrorOutputPaths = []string{"stderr"}
	logger, err := logConfig.Build()
	if err != nil {
		return nil, nil, nil, fmt.Errorf("etcd logger: %w", err)
	}
	var lastErr error
	// Free ports are picked by binding port 0 and releasing it; another
	// process may grab one in between, so a failed start is retried. Fixed
	// ports are retried too: the previous run's sockets may be closing.
	for attempt := 0; attempt < 5; attempt++ {
		ports := fixed
		if ports == nil {
			var err error
			if ports, err = freePorts(2); err != nil {
				return nil, nil, nil, err
			}
		}
		clientURL := url.URL{Scheme: "http", Host: net.JoinHostPort("127.0.0.1", strconv.Itoa(ports[0]))}
		peerURL := url.URL{Scheme: "http", Host: net.JoinHostPort("127.0.0.1", strconv.Itoa(ports[1]))}

		cfg := embed.NewConfig()
		cfg.Name = "kube-testenv"
		cfg.Dir = filepath.Join(dir, "etcd")
		cfg.ListenClientUrls = []url.URL{clientURL}
		cfg.AdvertiseClientUrls = []url.URL{clientURL}
		cfg.ListenPeerUrls = []url.URL{peerURL}
		cfg.AdvertisePeerUrls = []url.URL{peerURL}
		cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
		// A throw-away test store: durability across a host crash is not
		// wanted, and fsync is most of etcd's write latency.
		cfg.UnsafeNoFsync = true
		cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(logger)

		e, err := embed.StartEtcd(cfg)
		if err != nil {
			lastErr = err
			// A failed start leaves a member half-made in the data dir;
			// only a dir that held data before must be kept.
			if fixed == nil {
				os.RemoveAll(cfg.Dir)
			}
			time.Sleep(200 * time.Millisecond)
			continue
		}
		select {
		case <-e.Server.ReadyNotify():
			stop := func() {
				level.SetLevel(zapcore.FatalLevel)
				e.Close()
			}
			return e, ports, stop, nil
		case err := <-e.Err():
			e.Close()
			lastErr = err
		case <-time.After(60 * time.Second):
			e.Close()
			lastErr = fmt.Errorf("etcd did not become ready within 60s")
		}
	}
	return nil, nil, nil, fmt.Errorf("start embedded etcd: %w", lastErr)
}

// etcdURL is the client URL of the member listening on port.
func etcdURL(port int) string {
	return "http://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
}

// compact compacts etcd's history up to its current revision, as the API
// server's own compactor does every --etcd-compaction-interval (5 minutes by
// default): a watch asking for an older resourceVersion is then refused
// with 410 Gone ("too old resource version"), and clients must list again.
func compact(ctx context.Context, e *embed.Etcd) (int64, error) {
	rev := e.Server.KV().Rev()
	_, err := e.Server.Compact(ctx, &etcdserverpb.CompactionRequest{Revision: rev, Physical: true})
	return rev, err
}

// freePorts returns n distinct currently free TCP ports on 127.0.0.1.
func freePorts(n int) ([]int, error) {
	ports := make([]int, 0, n)
	for len(ports) < n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("find a free port: %w", err)
		}
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}
