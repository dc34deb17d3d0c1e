//! Lowering a valid HTTPRoute without filters, timeouts or retries straight from its wire
//! form: most of a mesh's routes.
//!
//! A route the snapshot knows valid is otherwise converted into its whole
//! [`gamma_model::ir::HttpRoute`] (its metadata, its parentRefs, a list of rules, each with a
//! list of matches and one of backendRefs) and that IR translated into the table's input, its
//! lists made again and the IR's freed. Here each wire match and backendRef goes through the
//! IR's own constructors ([`ir::HttpMatch::from_valid_wire`], [`ir::WeightedBackend::from_wire`])
//! and the translation the IR path uses ([`lower_http_rule_into`]), one at a time: the same
//! defaults and the same [`RouteIr`], without the IR's containers.
//!
//! A route this does not cover (filters, timeouts or retries on a rule, filters on a
//! backendRef, omitted rules, a match value gamma-model does not know) is lowered through the IR
//! as before; the test below checks that both give the same input for the routes this does
//! cover.

use std::iter;
use std::sync::Arc;

use gamma_model::RouteView;
use gamma_model::gateway::{HttpRoute, HttpRouteMatch, HttpRouteRule, MatchType, PathMatchType};
use gamma_model::ir;

use super::route::{HttpRuleParts, base, lower_http_rule_into, parent_from_wire};
use crate::input::{RouteIr, RuleIr};
use crate::regex::RegexPool;

/// `route` (valid under the options it was validated with) lowered without its IR; `None`
/// when it is not one this covers, to be lowered through the IR.
pub(super) fn lower_valid_http(
    view: RouteView<'_>,
    route: &HttpRoute,
    regexes: &mut RegexPool,
) -> Option<RouteIr> {
    // an omitted list means one default rule, which the IR makes
    let rules = route.spec.rules.as_deref()?;
    if !rules.iter().all(is_plain) {
        return None;
    }
    let mut out = without_rules(view, route)?;
    // shared by every backendRef that omits its namespace, as in the IR
    let ns: Arc<str> = Arc::from(view.metadata.namespace_or_default());
    // each rule is lowered in its place in the list (default first, then filled in)
    out.rules = iter::repeat_with(RuleIr::default)
        .take(rules.len())
        .collect();
    for ((index, rule), slot) in rules.iter().enumerate().zip(&mut out.rules) {
        // a match holding a value gamma-model does not know (which only the IR path reports)
        // sends the whole route there: it finds the regexes interned so far again, in the
        // same order, at the same indexes. One match (most rules) needs no list.
        match rule.matches.as_deref() {
            None | Some([]) => {
                let m = iter::once(ir::HttpMatch::default());
                lower_rule(index, rule, m, &ns, regexes, slot);
            }
            Some([m]) => {
                let m = iter::once(ir::HttpMatch::from_valid_wire(m)?);
                lower_rule(index, rule, m, &ns, regexes, slot);
            }
            Some(ms) => {
                let ms = ms
                    .iter()
                    .map(ir::HttpMatch::from_valid_wire)
                    .collect::<Option<Vec<_>>>()?;
                lower_rule(index, rule, ms.into_iter(), &ns, regexes, slot);
            }
        }
    }
    Some(out)
}

/// `route` (valid under the options it was validated with) lowered without its rules, which
/// the build reads in place from `route` (`build::read`), with the regexes they hold compiled
/// into `regexes` in the order lowering compiles them; `None` when reading them would not give
/// what lowering them gives (the route is lowered then): a rule this module does not cover, a
/// match value gamma-model does not know, or a regex the engine refuses (lowering drops that
/// rule and says why).
pub(super) fn route_for_reading<'s>(
    view: RouteView<'_>,
    route: &'s HttpRoute,
    regexes: &mut RegexPool,
) -> Option<(RouteIr, &'s [HttpRouteRule])> {
    let rules = route.spec.rules.as_deref()?;
    if !rules.iter().all(is_plain) {
        return None;
    }
    let out = without_rules(view, route)?;
    for rule in rules {
        for m in rule.matches.iter().flatten() {
            if !readable(m, regexes) {
                return None;
            }
        }
    }
    Some((out, rules))
}

/// `route` lowered to its route-level fields (kind, name, hostnames, parentRefs), no rules;
/// `None` for a hostname the IR refuses (the IR checks hostnames even for a route known
/// valid, and so do both lowerings here).
fn without_rules(view: RouteView<'_>, route: &HttpRoute) -> Option<RouteIr> {
    let hostnames = route
        .spec
        .hostnames
        .iter()
        .map(|h| ir::Hostname::new(h).ok().map(ir::Hostname::into_string))
        .collect::<Option<Vec<_>>>()?;
    let ns = view.metadata.namespace_or_default();
    let parents = view
        .parent_refs
        .iter()
        .map(|p| parent_from_wire(p, ns))
        .collect();
    Some(base(view, parents, hostnames))
}

/// Whether `m` holds only values gamma-model knows and regexes the engine accepts (compiled
/// into `regexes` as lowering compiles them: the path's, then the headers' and the query
/// parameters', each list without the entries lowering folds into an earlier one of the same
/// name).
fn readable(m: &HttpRouteMatch, regexes: &mut RegexPool) -> bool {
    if let Some(p) = &m.path {
        match &p.type_ {
            None | Some(PathMatchType::PathPrefix | PathMatchType::Exact) => {}
            Some(PathMatchType::RegularExpression) => {
                if regexes.intern(p.value_or_default()).is_err() {
                    return false;
                }
            }
            Some(PathMatchType::Unknown(_)) => return false,
        }
    }
    if m.method
        .as_ref()
        .is_some_and(|w| ir::Method::from_wire(w).is_none())
    {
        return false;
    }
    let regex = |t: &Option<MatchType>| matches!(t, Some(MatchType::RegularExpression));
    for (i, h) in m.headers.iter().enumerate() {
        let folded = || {
            m.headers
                .iter()
                .take(i)
                .any(|e| e.name.eq_ignore_ascii_case(&h.name))
        };
        if regex(&h.type_) && !folded() && regexes.intern(&h.value).is_err() {
            return false;
        }
    }
    for (i, q) in m.query_params.iter().enumerate() {
        let folded = || m.query_params.iter().take(i).any(|e| e.name == q.name);
        if regex(&q.type_) && !folded() && regexes.intern(&q.value).is_err() {
            return false;
        }
    }
    true
}

/// Rule `index` of a plain route with its converted `matches`, translated into `out` as the IR
/// path translates an [`ir::HttpRule`].
fn lower_rule(
    index: usize,
    rule: &HttpRouteRule,
    matches: impl ExactSizeIterator<Item = ir::HttpMatch>,
    ns: &Arc<str>,
    regexes: &mut RegexPool,
    out: &mut RuleIr,
) {
    let backends = rule
        .backend_refs
        .iter()
        .map(|b| ir::HttpBackend::new(ir::WeightedBackend::from_wire(&b.backend_ref, ns)));
    let parts = HttpRuleParts {
        index,
        name: rule.name.clone(),
        matches,
        filters: Vec::new(),
        backends,
        timeouts: None,
        retry: None,
    };
    lower_http_rule_into(parts, regexes, out);
}

/// Whether `rule` has nothing this leaves to the IR path: no filters (on the rule or a
/// backendRef), no timeouts, no retry.
fn is_plain(rule: &HttpRouteRule) -> bool {
    rule.filters.is_empty()
        && rule.timeouts.is_none()
        && rule.retry.is_none()
        && rule.backend_refs.iter().all(|b| b.filters.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lower::lowering_options;
    use crate::lower::route::lower_through_ir;
    use gamma_model::Validate;
    use gamma_model::validate::ValidateOptions;
    use gamma_model::{AnyResource, decode};
    use proptest::prelude::*;

    /// Lowers `resource` (a valid route) both ways, each into a fresh pool; returns the
    /// plain lowering (`None`: not covered) and the IR path's, each as its `Debug` text with
    /// the pool's patterns in interning order (the indexes rules refer to).
    fn both_ways(resource: &AnyResource) -> (Option<String>, String) {
        let opts = lowering_options(&ValidateOptions::default());
        let shown = |r: &RouteIr, pool: &RegexPool| {
            let patterns: Vec<&str> = pool.compiled().iter().map(|re| re.as_str()).collect();
            format!("{r:?}\n{patterns:?}")
        };
        let (mut a, mut b) = (RegexPool::default(), RegexPool::default());
        let plain = match resource {
            AnyResource::HttpRoute(route) => {
                let view = resource.as_route().expect("a route");
                lower_valid_http(view, route, &mut a).map(|r| shown(&r, &a))
            }
            _ => None,
        };
        let view = resource.as_route().expect("a route");
        let ir = lower_through_ir(view, resource, &opts, true, &mut b).expect("a route");
        (plain, shown(&ir, &b))
    }

    /// The Services and Gateway the generated routes name (`checkout`, the backends `a`, `b`,
    /// `c` and `other/a`, Gateway `gw`), as YAML documents.
    const CLUSTER: &str = r#"
apiVersion: v1
kind: Service
metadata: {name: checkout, namespace: shop}
spec: {clusterIP: 10.0.0.1, ports: [{port: 80}]}
---
apiVersion: v1
kind: Service
metadata: {name: a, namespace: shop}
spec: {clusterIP: 10.0.0.2, ports: [{port: 80}]}
---
apiVersion: v1
kind: Service
metadata: {name: b, namespace: shop}
spec: {clusterIP: 10.0.0.3, ports: [{port: 8080, appProtocol: grpc}]}
---
apiVersion: v1
kind: Service
metadata: {name: a, namespace: other}
spec: {clusterIP: 10.0.0.4, ports: [{port: 80}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: shop}
spec:
  gatewayClassName: example
  listeners: [{name: http, port: 80, protocol: HTTP}]
"#;

    /// The table of `snapshot` built from its lowered routes and built reading the rules it
    /// can in place, each as its `Debug` text and its parent conditions'; and how many routes
    /// the second read in place.
    fn both_tables(snapshot: &gamma_model::Snapshot) -> ((String, String), usize) {
        use crate::build::{Builder, Routes};
        let options = crate::BuildOptions::default();
        let opts = options.lowering();
        let shown = |t: crate::RouteTable| unhashed(&format!("{t:?}\n{:?}", t.parent_conditions()));
        let mut pool = RegexPool::default();
        let input = crate::lower::lower_into(snapshot, &opts, &mut pool);
        let lowered = Builder::new(&input, &options).with_regexes(pool).build();
        let mut pool = RegexPool::default();
        let (input, wire) = crate::lower::lower_reading(snapshot, &opts, &mut pool);
        let read = Builder::with_routes(&input, Routes::reading(&input.routes, &wire), &options)
            .with_regexes(pool)
            .build();
        let in_place = wire.iter().flatten().count();
        ((shown(lowered), shown(read)), in_place)
    }

    /// `text` without the regex pools' maps from pattern to index, whose `Debug` order is a
    /// hash map's (the pools' compiled patterns, in index order, stay and say the same).
    fn unhashed(text: &str) -> String {
        let (mut out, mut rest) = (String::new(), text);
        while let Some(start) = rest.find("by_pattern: {") {
            out.push_str(&rest[..start]);
            let end = rest[start..]
                .find("}, compiled: [")
                .map_or(rest.len(), |e| start + e + 3);
            rest = &rest[end..];
        }
        out.push_str(rest);
        out
    }

    /// A snapshot of [`CLUSTER`] and `routes` (YAML documents).
    fn snapshot_with(routes: &str) -> gamma_model::Snapshot {
        let objects = decode(&format!("{CLUSTER}---\n{routes}")).expect("decodes");
        gamma_model::Snapshot::from_resources(objects)
    }

    /// The `metadata` and `spec.parentRefs` of the example routes (route `shop/r` on Service
    /// `checkout`) followed by `rest` (more of `spec`, indented).
    fn with_head(rest: &str) -> String {
        let head = "metadata: {name: r, namespace: shop}\nspec:\n  parentRefs: [{group: \"\", kind: Service, name: checkout, port: 80}]\n";
        format!("{head}{rest}")
    }

    /// An HTTPRoute from its `metadata` and `spec` (YAML, from `metadata:` on), validated.
    fn route(body: &str) -> AnyResource {
        let yaml = format!("apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\n{body}");
        let mut objects = decode(&yaml).expect("decodes");
        let r = objects.remove(0);
        let opts = lowering_options(&ValidateOptions::default());
        r.validate_with(&opts).expect("a valid route");
        r
    }

    /// The `spec.rules` of the example routes: every default of a match and a backendRef, in
    /// three rules (the second with an empty match list, the third empty).
    const DEFAULTED_RULES: &str = r#"  rules:
  - name: first
    matches:
    - path: {type: PathPrefix, value: /api/}
      headers:
      - {name: X-Canary, value: "true"}
      - {name: x-canary, value: "false"}
      - {type: RegularExpression, name: X-Env, value: "pr-[0-9]+"}
      queryParams:
      - {name: q, value: "1"}
      - {type: RegularExpression, name: Q, value: "[a-z]+"}
      method: GET
    - path: {type: Exact, value: /healthz}
    - path: {type: RegularExpression, value: "/r/[0-9]+"}
    backendRefs:
    - {name: a, port: 80}
    - {name: b, namespace: other, port: 8080, weight: 0}
    - {group: example.com, kind: Bucket, name: c}
  - matches: []
    backendRefs: [{name: a, port: 80, weight: 3}, {name: a, namespace: other, port: 80}]
  - {}
"#;

    // The defaults of Gateway API HTTPRouteMatch (an omitted path is `PathPrefix /`, a
    // trailing `/` of a prefix is not significant), header names compared case-insensitively
    // (the first of each name kept), BackendRef's defaults (group "", kind Service, the
    // route's namespace, weight 1): the plain lowering gives what the IR gives.
    #[test]
    fn a_plain_route_lowers_as_its_ir_does() {
        let r = route(&format!(
            r#"
metadata: {{name: r, namespace: shop, creationTimestamp: "2026-01-02T03:04:05Z"}}
spec:
  parentRefs:
  - {{group: "", kind: Service, name: checkout, port: 80}}
  - {{name: gw, sectionName: http}}
  hostnames: [shop.example.com, "*.example.com"]
{DEFAULTED_RULES}"#
        ));
        let (plain, ir) = both_ways(&r);
        assert_eq!(plain.as_deref(), Some(ir.as_str()));
    }

    // The build reads a valid route's rules in place only where that gives the table lowering
    // gives: the defaults above (the Gateway API HTTPRouteMatch and BackendRef defaults,
    // header names case-insensitive with the first of each kept), a rule dropped for a regex
    // the engine refuses (that route is lowered), and routes of both forms in one build.
    #[test]
    fn a_table_read_in_place_is_the_table_lowered() {
        // one route read in place (`plain`), two lowered: a refused regex, a filter
        let plain = r#"
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: plain, namespace: shop, creationTimestamp: "2026-01-02T03:04:05Z"}
spec:
  parentRefs: [{group: "", kind: Service, name: checkout, port: 80}, {name: gw}]
  hostnames: [shop.example.com]
"#;
        let lowered = r#"
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: refused, namespace: shop}
spec:
  parentRefs: [{group: "", kind: Service, name: checkout, port: 80}]
  rules:
  - matches: [{path: {type: RegularExpression, value: "/bad/("}}]
    backendRefs: [{name: a, port: 80}]
  - matches: [{headers: [{name: x-canary, value: "true"}]}]
    backendRefs: [{name: a, port: 80}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: filtered, namespace: shop}
spec:
  parentRefs: [{group: "", kind: Service, name: checkout, port: 80}]
  rules:
  - matches: [{path: {value: /api}, headers: [{name: X-Canary, value: "true"}]}]
    filters: [{type: RequestHeaderModifier, requestHeaderModifier: {set: [{name: x, value: y}]}}]
    backendRefs: [{name: a, port: 80}]
"#;
        let routes = format!("{plain}{DEFAULTED_RULES}{lowered}");
        let ((lowered, read), in_place) = both_tables(&snapshot_with(&routes));
        assert_eq!(in_place, 1, "only the plain route is read in place");
        assert!(lowered.contains("UnsupportedValue"), "{lowered}");
        assert_eq!(read, lowered);
    }

    // The common rule (one match, one or two backendRefs) is lowered without a heap block for
    // either list; a third backendRef or a second match moves that list to the heap, in order.
    #[test]
    fn a_plain_rules_lists_are_held_inline_when_short() {
        let r = route(&with_head(
            r#"  rules:
  - matches: [{path: {type: Exact, value: /a}}]
    backendRefs: [{name: a, port: 80}, {name: b, port: 80}]
  - matches: [{path: {type: Exact, value: /b}}, {path: {type: Exact, value: /c}}]
    backendRefs: [{name: a, port: 80}, {name: b, port: 80}, {name: c, port: 80}]
"#,
        ));
        let AnyResource::HttpRoute(wire) = &r else {
            unreachable!("an HTTPRoute")
        };
        let view = r.as_route().expect("a route");
        let lowered =
            lower_valid_http(view, wire, &mut RegexPool::default()).expect("a plain route");
        let [short, long] = lowered.rules.as_slice() else {
            panic!("two rules: {lowered:?}")
        };
        assert!(!short.matches.spilled() && !short.backends.spilled());
        assert!(long.matches.spilled() && long.backends.spilled());
        let names: Vec<&str> = long.backends.iter().map(|b| b.name.as_str()).collect();
        assert_eq!(names, ["a", "b", "c"]);
        assert_eq!(long.matches.len(), 2);
    }

    // A regex the regex crate refuses makes its rule invalid (UnsupportedValue, naming the
    // field) on both paths alike, and the pool holds the same patterns at the same indexes.
    #[test]
    fn a_refused_regex_invalidates_its_rule_as_in_the_ir_path() {
        let r = route(&with_head(
            r#"  rules:
  - matches:
    - path: {type: RegularExpression, value: "/ok/.*"}
    - path: {type: RegularExpression, value: "/bad/("}
    backendRefs: [{name: a, port: 80}]
  - matches:
    - headers: [{type: RegularExpression, name: x, value: "(unclosed"}]
    backendRefs: [{name: a, port: 80}]
"#,
        ));
        let (plain, ir) = both_ways(&r);
        assert!(ir.contains("UnsupportedValue"), "{ir}");
        assert_eq!(plain.as_deref(), Some(ir.as_str()));
    }

    // What the plain lowering leaves to the IR path: rules with filters, timeouts or retries,
    // backendRefs with filters, and omitted rules (one default rule, which the IR makes).
    #[test]
    fn routes_with_filters_timeouts_or_omitted_rules_take_the_ir_path() {
        for spec in [
            "",
            "  rules: [{filters: [{type: RequestHeaderModifier, requestHeaderModifier: {set: [{name: x, value: y}]}}], backendRefs: [{name: a, port: 80}]}]\n",
            "  rules: [{timeouts: {request: 10s}, backendRefs: [{name: a, port: 80}]}]\n",
            "  rules: [{retry: {attempts: 2}, backendRefs: [{name: a, port: 80}]}]\n",
            "  rules: [{backendRefs: [{name: a, port: 80, filters: [{type: RequestHeaderModifier, requestHeaderModifier: {add: [{name: x, value: y}]}}]}]}]\n",
        ] {
            let r = route(&with_head(spec));
            let (plain, _) = both_ways(&r);
            assert_eq!(plain, None, "{spec}");
        }
    }

    /// One wire match of generated routes, as YAML flow text.
    fn arb_match() -> impl Strategy<Value = String> {
        let path = prop_oneof![
            Just(String::new()),
            prop::sample::select(vec![
                "{type: PathPrefix, value: /}",
                "{type: PathPrefix, value: /api/}",
                "{value: /api}",
                "{type: Exact, value: /a/b/}",
                "{type: Exact}",
                "{type: RegularExpression, value: \"/r/[0-9]+\"}",
                "{type: RegularExpression, value: \"/x(\"}",
            ])
            .prop_map(|p| format!("path: {p}, ")),
        ];
        // distinct names (the CRD refuses a name twice in one match, headers compared
        // case-insensitively), in any order and case
        let header = prop::sample::subsequence(
            vec![
                "{name: X-A, value: \"1\"}",
                "{type: Exact, name: x-b, value: \"3\"}",
                "{type: RegularExpression, name: X-C, value: \"v[0-9]\"}",
                "{type: RegularExpression, name: x-d, value: \"(\"}",
            ],
            0..4,
        )
        .prop_shuffle();
        let query = prop::sample::subsequence(
            vec![
                "{name: q, value: \"1\"}",
                "{name: Q, value: \"2\"}",
                "{type: RegularExpression, name: r, value: \"[a-z]+\"}",
            ],
            0..3,
        )
        .prop_shuffle();
        let method = prop::sample::select(vec!["", "method: GET, ", "method: DELETE, "]);
        (path, header, query, method).prop_map(|(p, h, q, m)| {
            format!(
                "{{{p}{m}headers: [{}], queryParams: [{}]}}",
                h.join(", "),
                q.join(", ")
            )
        })
    }

    /// One generated rule: matches omitted, empty or one to three; zero to three
    /// backendRefs with and without their defaults; now and then a filter or a timeout (the
    /// route then takes the IR path).
    fn arb_rule() -> impl Strategy<Value = String> {
        let matches = prop_oneof![
            Just(String::new()),
            Just("matches: [], ".to_string()),
            prop::collection::vec(arb_match(), 1..4)
                .prop_map(|m| format!("matches: [{}], ", m.join(", "))),
        ];
        let backend = prop::sample::select(vec![
            "{name: a, port: 80}",
            "{name: b, port: 8080, weight: 0}",
            "{name: a, namespace: other, port: 80, weight: 7}",
            "{group: \"\", kind: Service, name: c, port: 9090}",
            "{group: example.com, kind: Bucket, name: d}",
        ]);
        let extra = prop::sample::select(vec![
            "",
            "",
            "",
            "name: n, ",
            "timeouts: {request: 5s}, ",
            "filters: [{type: RequestHeaderModifier, requestHeaderModifier: {remove: [x]}}], ",
        ]);
        (matches, prop::collection::vec(backend, 0..4), extra)
            .prop_map(|(m, b, e)| format!("{{{e}{m}backendRefs: [{}]}}", b.join(", ")))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        // Differential: for any valid HTTPRoute, the plain lowering either declines (the
        // route has what only the IR path lowers) or gives exactly the IR path's input and
        // regex pool.
        #[test]
        fn plain_lowering_agrees_with_the_ir_path(
            rules in prop::collection::vec(arb_rule(), 1..4),
            hostnames in prop::sample::select(vec!["[]", "[a.example.com]", "[\"*.example.com\", b.example.com]"]),
            namespace in prop::sample::select(vec!["", "namespace: shop, "]),
        ) {
            let yaml = format!(
                "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {{{namespace}name: r}}\nspec:\n  parentRefs: [{{group: \"\", kind: Service, name: checkout, port: 80}}, {{name: gw}}]\n  hostnames: {hostnames}\n  rules: [{}]\n",
                rules.join(", ")
            );
            let r = decode(&yaml).expect("decodes").remove(0);
            let opts = lowering_options(&ValidateOptions::default());
            prop_assume!(r.validate_with(&opts).is_ok());
            let AnyResource::HttpRoute(wire) = &r else { unreachable!("an HTTPRoute") };
            let covered = wire.spec.rules.as_deref().is_some_and(|rs| rs.iter().all(is_plain));
            let (plain, ir) = both_ways(&r);
            if covered {
                prop_assert_eq!(plain.as_deref(), Some(ir.as_str()));
            } else {
                prop_assert_eq!(plain, None);
            }
        }

        // Differential, whole tables: generated routes of both forms in one snapshot give
        // the same table (every index, candidate, backend and condition) whether their rules
        // are lowered or read in place.
        #[test]
        fn tables_read_in_place_agree_with_tables_lowered(
            routes in prop::collection::vec(
                (prop::collection::vec(arb_rule(), 1..4), prop::sample::select(vec!["[]", "[a.example.com]"])),
                1..4,
            ),
        ) {
            let yaml: Vec<String> = routes
                .iter()
                .enumerate()
                .map(|(i, (rules, hostnames))| format!(
                    "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {{name: r{i}, namespace: shop}}\nspec:\n  parentRefs: [{{group: \"\", kind: Service, name: checkout, port: 80}}, {{name: gw}}]\n  hostnames: {hostnames}\n  rules: [{}]\n",
                    rules.join(", ")
                ))
                .collect();
            let ((lowered, read), _) = both_tables(&snapshot_with(&yaml.join("---\n")));
            prop_assert_eq!(read, lowered);
        }
    }
}
