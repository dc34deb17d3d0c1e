package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensions "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
	"sigs.k8s.io/yaml"
)

// readCRDs reads every CustomResourceDefinition from the *.yaml files of dir
// (multi-document files allowed). Documents of other kinds (the bundle's
// ValidatingAdmissionPolicy, kustomization files) are skipped.
func readCRDs(dir string) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return nil, err
	}
	sort.Strings(paths)
	var crds []*apiextensionsv1.CustomResourceDefinition
	for _, path := range paths {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		reader := utilyaml.NewYAMLReader(bufio.NewReader(f))
		for {
			doc, err := reader.Read()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				f.Close()
				return nil, fmt.Errorf("%s: %w", path, err)
			}
			var meta metav1.TypeMeta
			if err := yaml.Unmarshal(doc, &meta); err != nil {
				f.Close()
				return nil, fmt.Errorf("%s: %w", path, err)
			}
			if meta.APIVersion != "apiextensions.k8s.io/v1" || meta.Kind != "CustomResourceDefinition" {
				continue
			}
			crd := &apiextensionsv1.CustomResourceDefinition{}
			if err := yaml.UnmarshalStrict(doc, crd); err != nil {
				f.Close()
				return nil, fmt.Errorf("%s: %w", path, err)
			}
			crds = append(crds, crd)
		}
		f.Close()
	}
	if len(crds) == 0 {
		return nil, fmt.Errorf("no CustomResourceDefinition in %s/*.yaml", dir)
	}
	return crds, nil
}

// installCRDs creates the CRDs and waits until every one is Established and
// each of its served versions lists the resource in discovery, so that the
// first request a test sends after `ready` is served.
func installCRDs(ctx context.Context, config *rest.Config, crds []*apiextensionsv1.CustomResourceDefinition) error {
	client, err := apiextensions.NewForConfig(config)
	if err != nil {
		return err
	}
	disco, err := discovery.NewDiscoveryClientForConfig(config)
	if err != nil {
		return err
	}
	for _, crd := range crds {
		// A restart on a data dir finds them installed.
		if _, err := client.ApiextensionsV1().CustomResourceDefinitions().Create(ctx, crd, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("create CRD %s: %w", crd.Name, err)
		}
	}
	for _, crd := range crds {
		err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 60*time.Second, true, func(ctx context.Context) (bool, error) {
			got, err := client.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, crd.Name, metav1.GetOptions{})
			if err != nil {
				return false, nil
			}
			if !established(got) {
				return false, nil
			}
			for _, v := range got.Spec.Versions {
				if !v.Served {
					continue
				}
				list, err := disco.ServerResourcesForGroupVersion(got.Spec.Group + "/" + v.Name)
				if err != nil {
					return false, nil
				}
				if !listsResource(list, got.Spec.Names.Plural) {
					return false, nil
				}
			}
			return true, nil
		})
		if err != nil {
			return fmt.Errorf("CRD %s not established and served: %w", crd.Name, err)
		}
	}
	names := make([]string, 0, len(crds))
	for _, crd := range crds {
		names = append(names, crd.Name)
	}
	klog.Infof("kube-testenv: CRDs established and served: %s", strings.Join(names, ", "))
	return nil
}

func established(crd *apiextensionsv1.CustomResourceDefinition) bool {
	for _, c := range crd.Status.Conditions {
		if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
			return true
		}
	}
	return false
}

func listsResource(list *metav1.APIResourceList, plural string) bool {
	for _, r := range list.APIResources {
		if r.Name == plural {
			return true
		}
	}
	return false
}
