#!/usr/bin/env bash
# Builds the fuzz seed corpora under fuzz/corpus/<target>/ at run time, from the upstream Gateway
# API examples ($GAMMA_UPSTREAM_DIR, never copied into the repository) and the repository's sample
# manifests (examples/manifests). Idempotent; existing corpus entries are kept.
#
#   decode                      the manifest bytes as they are, plus a few JSON shapes
#   validate, resolve,
#   resolve_differential,
#   update,
#   arbiter, authorize          0x01, the manifest, 0x00: "decode this, then mutate it" (see
#                               src/frame.rs), so the structural targets start from real objects
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/.." && pwd)"
corpus="$here/corpus"
upstream="${GAMMA_UPSTREAM_DIR:-}"
if [[ -z "$upstream" ]]; then
  for cand in "$repo/../shared/upstream/gateway-api-v1.6.1" "$repo/../../shared/upstream/gateway-api-v1.6.1"; do
    if [[ -d "$cand" ]]; then upstream="$cand"; break; fi
  done
fi
# .ci/run exports a path relative to the repository root; make it absolute before using it.
if [[ -n "$upstream" && "$upstream" != /* ]]; then
  upstream="$(cd "$repo" && cd "$upstream" 2>/dev/null && pwd || true)"
fi

targets_structural=(validate resolve resolve_differential update arbiter authorize)
mkdir -p "$corpus/decode"
for t in "${targets_structural[@]}"; do mkdir -p "$corpus/$t"; done

sources=()
if [[ -n "$upstream" && -d "$upstream/examples" ]]; then
  while IFS= read -r -d '' f; do sources+=("$f"); done < <(find "$upstream/examples" -name '*.yaml' -print0 | sort -z)
else
  echo "seed.sh: GAMMA_UPSTREAM_DIR not set or has no examples/; seeding from the sample manifests only"
fi
while IFS= read -r -d '' f; do sources+=("$f"); done < <(find "$repo/examples" -name '*.yaml' -print0 | sort -z)

n=0
for f in "${sources[@]}"; do
  # A stable, flat name: the path relative to its root with slashes turned into dashes.
  if [[ -n "$upstream" && "$f" == "$upstream"/* ]]; then
    rel="upstream/${f#"$upstream"/}"
  else
    rel="${f#"$repo"/}"
  fi
  name="m-${rel//\//-}"
  cp "$f" "$corpus/decode/$name"
  for t in "${targets_structural[@]}"; do
    { printf '\001'; cat "$f"; printf '\000'; } > "$corpus/$t/$name"
  done
  n=$((n + 1))
done

# The whole sample cluster in one input, so resolve and arbiter seeds have Services, routes and a
# Gateway together (one file per kind alone binds nothing).
if compgen -G "$repo/examples/manifests/*.yaml" > /dev/null; then
  for t in "${targets_structural[@]}"; do
    { printf '\001'; for f in "$repo"/examples/manifests/*.yaml; do cat "$f"; printf '\n---\n'; done; printf '\000'; } \
      > "$corpus/$t/m-sample-cluster"
  done
fi

# Pods and XAuthorizationPolicies for the authorize target (the gammactl fixture).
if [[ -f "$repo/crates/gammactl/tests/fixtures/authorization.yaml" ]]; then
  { printf '\001'; cat "$repo/crates/gammactl/tests/fixtures/authorization.yaml"; printf '\000'; } \
    > "$corpus/authorize/m-authorization"
fi

# JSON shapes the decoder accepts: one object, an array, a kind: List.
cat > "$corpus/decode/j-object" <<'JSON'
{"apiVersion":"gateway.networking.k8s.io/v1","kind":"HTTPRoute","metadata":{"name":"web","namespace":"shop"},"spec":{"parentRefs":[{"group":"","kind":"Service","name":"web","port":80}],"rules":[{"matches":[{"path":{"type":"PathPrefix","value":"/api"},"headers":[{"name":"x-version","value":"v2"}]}],"backendRefs":[{"name":"web-v2","port":80,"weight":90},{"name":"web-v1","port":80,"weight":10}]}]}}
JSON
cat > "$corpus/decode/j-array" <<'JSON'
[{"apiVersion":"v1","kind":"Service","metadata":{"name":"web","namespace":"shop"},"spec":{"clusterIP":"10.96.0.1","ports":[{"name":"http","port":80}]}},{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"shop","labels":{"gamma.rs/mesh":"mesh"}}}]
JSON
cat > "$corpus/decode/j-list" <<'JSON'
{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"gateway.networking.k8s.io/v1","kind":"GRPCRoute","metadata":{"name":"g"},"spec":{"parentRefs":[{"group":"","kind":"Service","name":"grpc"}],"rules":[{"matches":[{"method":{"service":"pkg.Svc","method":"Get"}}]}]}}]}
JSON
# YAML features the decoder must survive: anchors and aliases, multi-documents, flow style.
cat > "$corpus/decode/y-anchors" <<'YAML'
apiVersion: v1
kind: Service
metadata: &m {name: web, namespace: shop, labels: &l {app: web}}
spec: {clusterIP: 10.96.0.1, ports: [{name: http, port: 80}], selector: *l}
---
apiVersion: v1
kind: Namespace
metadata: {name: shop}
YAML

echo "seed.sh: $n manifests -> $(ls "$corpus/decode" | wc -l) decode seeds in $corpus"
