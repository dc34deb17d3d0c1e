package main

import (
	"context"
	"fmt"
	"net"
	"strconv"

	"github.com/spf13/pflag"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/client-go/rest"
	basecompatibility "k8s.io/component-base/compatibility"
	logsapi "k8s.io/component-base/logs/api/v1"
	"k8s.io/kubernetes/cmd/kube-apiserver/app"
	"k8s.io/kubernetes/cmd/kube-apiserver/app/options"
)

// apiServerFlags are the kube-apiserver command-line flags of the test
// environment: the same flags a cluster's kube-apiserver takes.
func apiServerFlags(etcdURL string, creds *credentials, port int, s *settings) []string {
	flags := []string{
		"--watch-cache=" + strconv.FormatBool(s.watchCache),
		"--etcd-servers=" + etcdURL,
		"--bind-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(port),
		"--advertise-address=127.0.0.1",
		// The default/kubernetes Service's endpoints would be 127.0.0.1,
		// which Endpoints validation rejects (loopback); kube-apiserver's
		// own integration test server turns the reconciler off for the same
		// reason.
		"--endpoint-reconciler-type=none",
		"--tls-cert-file=" + creds.servingCert,
		"--tls-private-key-file=" + creds.servingKey,
		"--token-auth-file=" + creds.tokenFile,
		"--authorization-mode=AlwaysAllow",
		"--anonymous-auth=false",
		"--service-account-issuer=https://kube-testenv.invalid",
		"--service-account-key-file=" + creds.saKey,
		"--service-account-signing-key-file=" + creds.saKey,
		// ClusterIPs are allocated from this range by the API server itself
		// (no controller needed); nothing routes to them.
		"--service-cluster-ip-range=10.96.0.0/16",
		"--service-node-port-range=30000-32767",
		"--profiling=false",
	}
	// Only when asked: the default server is kube-apiserver's default API
	// set, as a cluster that enables nothing extra has it.
	if s.runtimeConfig != "" {
		flags = append(flags, "--runtime-config="+s.runtimeConfig)
	}
	if s.featureGates != "" {
		flags = append(flags, "--feature-gates="+s.featureGates)
	}
	return flags
}

// startAPIServer runs the real kube-apiserver (its server chain: aggregator,
// core API, apiextensions) in this process until ctx is cancelled. It does
// what kube-apiserver's own command does between flag parsing and Run. The
// returned channel yields Run's result once the server has stopped.
func startAPIServer(ctx context.Context, listener net.Listener, flags []string) (<-chan error, error) {
	s := options.NewServerRunOptions()
	fs := pflag.NewFlagSet("kube-apiserver", pflag.ContinueOnError)
	for _, set := range s.Flags().FlagSets {
		fs.AddFlagSet(set)
	}
	if err := fs.Parse(flags); err != nil {
		return nil, fmt.Errorf("kube-apiserver flags: %w", err)
	}
	// Serve on the listener bound before the server starts, so the port
	// cannot be taken in between.
	s.SecureServing.Listener = listener
	s.SecureServing.BindPort = listener.Addr().(*net.TCPAddr).Port

	registry := s.GenericServerRunOptions.ComponentGlobalsRegistry
	if err := registry.Set(); err != nil {
		return nil, err
	}
	// kube-apiserver's loopback clients should not log self-issued warnings.
	rest.SetDefaultWarningHandler(rest.NoWarnings{})
	featureGate := registry.FeatureGateFor(basecompatibility.DefaultKubeComponent)
	if err := logsapi.ValidateAndApply(s.Logs, featureGate); err != nil {
		return nil, err
	}
	completed, err := s.Complete(ctx)
	if err != nil {
		return nil, err
	}
	if errs := completed.Validate(); len(errs) != 0 {
		return nil, utilerrors.NewAggregate(errs)
	}
	done := make(chan error, 1)
	go func() {
		done <- app.Run(ctx, completed)
	}()
	return done, nil
}
