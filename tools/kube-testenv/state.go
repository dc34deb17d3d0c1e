package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// persisted is what a restart on the same --data-dir needs to be the same
// cluster to its clients: the ports (the server URL stays the same), the CA
// and the admin token (the kubeconfig stays valid). The key and certificate
// files are beside it in the data dir; etcd's data is in its etcd/ subdir.
type persisted struct {
	APIPort        int    `json:"apiPort"`
	EtcdClientPort int    `json:"etcdClientPort"`
	EtcdPeerPort   int    `json:"etcdPeerPort"`
	CAPEM          []byte `json:"caPEM"`
	AdminToken     string `json:"adminToken"`
}

const stateFile = "kube-testenv-state.json"

// loadState reads the state of an earlier run in dir; nil when there was none.
func loadState(dir string) (*persisted, error) {
	data, err := os.ReadFile(filepath.Join(dir, stateFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var p persisted
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, fmt.Errorf("%s: %w", stateFile, err)
	}
	if p.APIPort == 0 || p.EtcdClientPort == 0 || p.EtcdPeerPort == 0 || len(p.CAPEM) == 0 || p.AdminToken == "" {
		return nil, fmt.Errorf("%s: incomplete; remove the data dir to start afresh", stateFile)
	}
	return &p, nil
}

// saveState writes p to dir atomically.
func saveState(dir string, p *persisted) error {
	data, err := json.Marshal(p)
	if err != nil {
		return err
	}
	partial := filepath.Join(dir, stateFile+".partial")
	if err := os.WriteFile(partial, data, 0o600); err != nil {
		return err
	}
	return os.Rename(partial, filepath.Join(dir, stateFile))
}

// existingCredentials are the credentials of an earlier run in dir.
func existingCredentials(dir string, p *persisted) *credentials {
	c := credentialFiles(dir)
	c.caPEM = p.CAPEM
	c.adminToken = p.AdminToken
	return c
}
