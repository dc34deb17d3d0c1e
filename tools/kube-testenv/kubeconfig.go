package main

import (
	"os"
	"path/filepath"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// writeKubeconfig writes an admin kubeconfig (server URL, CA data, bearer
// token) to path, atomically: a reader never sees a half-written file.
func writeKubeconfig(path string, admin *rest.Config, creds *credentials) error {
	const name = "kube-testenv"
	config := clientcmdapi.NewConfig()
	config.Clusters[name] = &clientcmdapi.Cluster{
		Server:                   admin.Host,
		CertificateAuthorityData: creds.caPEM,
	}
	config.AuthInfos[name] = &clientcmdapi.AuthInfo{Token: creds.adminToken}
	config.Contexts[name] = &clientcmdapi.Context{Cluster: name, AuthInfo: name, Namespace: "default"}
	config.CurrentContext = name
	data, err := clientcmd.Write(*config)
	if err != nil {
		return err
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	partial := path + ".partial"
	if err := os.WriteFile(partial, data, 0o600); err != nil {
		return err
	}
	return os.Rename(partial, path)
}
