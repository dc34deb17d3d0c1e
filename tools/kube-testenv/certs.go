package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// credentials are the files and secrets the API server and its admin
// kubeconfig share. Everything is generated fresh per run (and kept for the
// next run with --data-dir).
type credentials struct {
	caPEM         []byte // CA that signed the serving certificate (kubeconfig certificate-authority-data)
	servingCert   string // serving certificate file (--tls-cert-file)
	servingKey    string // its key (--tls-private-key-file)
	saKey         string // service account signing key (--service-account-*key-file)
	tokenFile     string // static token file (--token-auth-file)
	adminToken    string // bearer token of the admin user (group system:masters)
	adminUserName string
}

// writeCredentials generates a CA, a serving certificate for 127.0.0.1 and
// localhost signed by it, a service account key and an admin token, all
// under dir.
func writeCredentials(dir string) (*credentials, error) {
	now := time.Now()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	caTmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "kube-testenv-ca"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(10 * 365 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, err
	}
	caCert, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, err
	}

	servingKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	servingTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2),
		Subject:      pkix.Name{CommonName: "kube-apiserver"},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(10 * 365 * 24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		// Clients reach the server as https://127.0.0.1:PORT; localhost and
		// the in-cluster name are there for tools that use a host name.
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		DNSNames:    []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc"},
	}
	servingDER, err := x509.CreateCertificate(rand.Reader, servingTmpl, caCert, &servingKey.PublicKey, caKey)
	if err != nil {
		return nil, err
	}

	saKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}

	tokenBytes := make([]byte, 32)
	if _, err := rand.Read(tokenBytes); err != nil {
		return nil, err
	}

	c := credentialFiles(dir)
	c.caPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})
	c.adminToken = hex.EncodeToString(tokenBytes)
	servingPEM := append(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: servingDER}), c.caPEM...)
	if err := os.WriteFile(c.servingCert, servingPEM, 0o600); err != nil {
		return nil, err
	}
	if err := writeECKey(c.servingKey, servingKey); err != nil {
		return nil, err
	}
	if err := writeECKey(c.saKey, saKey); err != nil {
		return nil, err
	}
	// Static token file: token,user,uid,"groups". system:masters is the
	// superuser group, so the admin is allowed everything whatever the
	// authorization mode.
	tokens := fmt.Sprintf("%s,%s,%s,\"system:masters\"\n", c.adminToken, c.adminUserName, c.adminUserName)
	if err := os.WriteFile(c.tokenFile, []byte(tokens), 0o600); err != nil {
		return nil, err
	}
	return c, nil
}

// credentialFiles names the credential files under dir.
func credentialFiles(dir string) *credentials {
	return &credentials{
		servingCert:   filepath.Join(dir, "apiserver.crt"),
		servingKey:    filepath.Join(dir, "apiserver.key"),
		saKey:         filepath.Join(dir, "service-account.key"),
		tokenFile:     filepath.Join(dir, "tokens.csv"),
		adminUserName: "kube-testenv-admin",
	}
}

func writeECKey(path string, key *ecdsa.PrivateKey) error {
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return err
	}
	return os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der}), 0o600)
}
