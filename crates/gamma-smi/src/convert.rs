//! SMI TrafficSplit → Gateway API (GAMMA) producer routes.
//!
//! For each TrafficSplit, one route per port of the root Service, attached to that Service
//! port (`parentRefs: [{group: "", kind: Service, name: <root>, port: <port>}]`) in the split's
//! namespace (a producer route, GEP-1294 namespace boundaries), with the split's backends as
//! weighted backendRefs on the same port (SMI has no backend port: "there must be a match between a
//! port on the root service and a port on every destination backend service").
//!
//! - No `matches`: one rule without matches (every request is split).
//! - HTTPRouteGroup `matches` (v1alpha3+): the groups' matches, merged, become the rule's
//!   matches; an explicit catch-all rule sends everything else to the root Service itself
//!   (a backendRef to the parent Service reaches its endpoints, GEP-1294 multiple routes for a
//!   Service), which is what SMI does with unmatched requests. Without it the Gateway API would
//!   answer 404 (Gateway API HTTPRouteRule.matches and ParentReference).
//! - TCPRoute `matches`: a Gateway API TCPRoute on each root port the SMI TCPRoute lists.
//! - UDP ports: a UDPRoute. Ports with `appProtocol: tcp`: a TCPRoute.
//!
//! Anything that cannot be expressed is left out and listed in the [`Report`].

use std::collections::{BTreeMap, BTreeSet};

use gamma_model::gateway::{
    BackendRef, HttpBackendRef, HttpPathMatch, HttpRoute, HttpRouteMatch, HttpRouteRule,
    HttpRouteSpec, L4RouteRule, ParentReference, PathMatchType, TcpRoute, TcpRouteSpec, UdpRoute,
    UdpRouteSpec,
};
use gamma_model::k8s::{Service, ServicePort};
use gamma_model::meta::ObjectMeta;
use gamma_model::smi::{
    HttpRouteGroup, Ratio, SmiVersion, SplitMatchKind, TrafficSplit, TrafficSplitBackend,
};
use gamma_model::{AnyResource, ObjectKey, ResourceKind, Snapshot, Validate};

use crate::gateway_match::convert_match;
use crate::report::{Report, Severity};
use crate::weights::integer_weights;

/// The annotation naming the SMI object a converted resource came from
/// (`TrafficSplit shop/checkout-canary`).
pub const SOURCE_ANNOTATION: &str = "gamma.rs/converted-from";

/// Gateway API limits used when laying out rules (HTTPRoute CRD v1.6.1; TLSRoute, TCPRoute and
/// UDPRoute CRDs v1.6.1).
const MAX_MATCHES_PER_RULE: usize = 64;
const MAX_MATCHES_PER_ROUTE: usize = 128;
const MAX_BACKENDS: usize = 16;

/// The result of [`convert`]: Gateway API resources and what could not be carried over.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct Conversion {
    /// The converted routes, in a deterministic order (by TrafficSplit, then port).
    pub resources: Vec<AnyResource>,
    /// Everything not expressed exactly, by SMI object and field.
    pub report: Report,
}

/// Converts every SMI TrafficSplit in `snapshot` to Gateway API routes, reading the Services,
/// HTTPRouteGroups and SMI TCPRoutes it references from the same snapshot. TrafficTargets have
/// no standard Gateway API equivalent: they are listed in the report (see
/// [`crate::gep::convert_traffic_targets`] for the proposed AuthorizationPolicy, and
/// [`crate::Authorizer`]).
///
/// ```
/// use gamma_model::{Snapshot, decode};
/// let snap = Snapshot::from_resources(decode(r#"
/// apiVersion: v1
/// kind: Service
/// metadata: {name: web, namespace: shop}
/// spec: {ports: [{name: http, port: 80}]}
/// ---
/// apiVersion: v1
/// kind: Service
/// metadata: {name: web-v2, namespace: shop}
/// spec: {ports: [{name: http, port: 80}]}
/// ---
/// apiVersion: split.smi-spec.io/v1alpha1
/// kind: TrafficSplit
/// metadata: {name: canary, namespace: shop}
/// spec:
///   service: web
///   backends: [{service: web, weight: 900m}, {service: web-v2, weight: 100m}]
/// "#).unwrap());
/// let out = gamma_smi::convert(&snap);
/// let gamma_model::AnyResource::HttpRoute(route) = &out.resources[0] else { unreachable!() };
/// let rule = &route.spec.rules.as_ref().unwrap()[0];
/// let weights: Vec<_> = rule.backend_refs.iter().map(|b| b.backend_ref.weight).collect();
/// assert_eq!(weights, [Some(9), Some(1)]);
/// ```
pub fn convert(snapshot: &Snapshot) -> Conversion {
    let mut c = Converter {
        snap: snapshot,
        out: Conversion::default(),
        roots: BTreeMap::new(),
    };
    for ts in snapshot.traffic_splits() {
        c.split(ts);
    }
    for tt in snapshot.traffic_targets() {
        let me = ObjectKey::new(
            ResourceKind::TrafficTarget,
            tt.metadata.namespace_or_default(),
            &tt.metadata.name,
        );
        c.out.report.push(
            Severity::Dropped,
            &me,
            "",
            "access control has no Gateway API equivalent among the routes; \
             gamma_smi::gep::convert_traffic_targets converts it to the proposed \
             XAuthorizationPolicy (GEP-3779), gamma_smi::Authorizer (`gammactl authorize`) \
             evaluates it",
        );
    }
    c.out
}

struct Converter<'a> {
    snap: &'a Snapshot,
    out: Conversion,
    /// Root Services already claimed by a TrafficSplit: (namespace, service) → split name.
    roots: BTreeMap<(String, String), String>,
}

/// Which traffic a split's `matches` select.
struct Selection {
    /// The merged HTTPRouteGroup matches, when any HTTPRouteGroup is referenced.
    http: Option<Vec<HttpRouteMatch>>,
    /// The ports of the referenced SMI TCPRoutes (`None` inside: every port), when any is.
    tcp: Option<Option<BTreeSet<i32>>>,
}

enum L4 {
    Tcp,
    Udp,
}

fn is_http_app_protocol(p: &str) -> bool {
    let p = p.to_ascii_lowercase();
    matches!(
        p.as_str(),
        "http"
            | "https"
            | "http2"
            | "h2c"
            | "grpc"
            | "kubernetes.io/h2c"
            | "kubernetes.io/ws"
            | "kubernetes.io/wss"
    )
}

impl Converter<'_> {
    fn split(&mut self, ts: &TrafficSplit) {
        let ns = ts.metadata.namespace_or_default().to_owned();
        let me = ObjectKey::new(ResourceKind::TrafficSplit, &ns, &ts.metadata.name);
        if let Err(errors) = ts.validate() {
            for e in errors {
                self.out.report.push(
                    Severity::Dropped,
                    &me,
                    e.path.as_str(),
                    format!("{}; the TrafficSplit is not converted", e.kind),
                );
            }
            return;
        }
        let root_name = local_service_name(&ts.spec.service, &ns)
            .unwrap_or(&ts.spec.service)
            .to_owned();
        let Some(root) = self.snap.service(&ns, &root_name) else {
            self.out.report.push(
                Severity::Dropped,
                &me,
                "spec.service",
                format!(
                    "root Service {ns}/{root_name} not found: its ports decide the routes; the \
                     TrafficSplit is not converted"
                ),
            );
            return;
        };
        match self.roots.get(&(ns.clone(), root_name.clone())) {
            Some(first) => self.out.report.push(
                Severity::Note,
                &me,
                "spec.service",
                format!(
                    "TrafficSplit {ns}/{first} also splits Service {root_name}; SMI leaves two \
                     splits of one Service undefined, the Gateway API merges their routes by \
                     precedence (Gateway API HTTPRouteRule.matches precedence; GEP-1294 route \
                     types)"
                ),
            ),
            None => {
                self.roots
                    .insert((ns.clone(), root_name.clone()), ts.metadata.name.clone());
            }
        }
        let ratios: Vec<Ratio> = ts.spec.backends.iter().map(weight_of).collect();
        let selection = self.selection(ts, &me, &ns);
        let mut missing_reported = BTreeSet::new();
        let mut ports: Vec<&ServicePort> = root.spec.ports.iter().collect();
        ports.sort_by_key(|p| p.port);
        if ports.is_empty() {
            self.out.report.push(
                Severity::Note,
                &me,
                "spec.service",
                format!("root Service {ns}/{root_name} has no ports: nothing to route"),
            );
        }
        for sp in ports {
            self.port(
                ts,
                &me,
                &ns,
                root,
                sp,
                &ratios,
                &selection,
                &mut missing_reported,
            );
        }
    }

    /// Resolves `spec.matches` into the traffic they select.
    fn selection(&mut self, ts: &TrafficSplit, me: &ObjectKey, ns: &str) -> Selection {
        let mut sel = Selection {
            http: None,
            tcp: None,
        };
        for (i, m) in ts.spec.matches.iter().enumerate() {
            let field = format!("spec.matches[{i}]");
            match m.kind {
                SplitMatchKind::HttpRouteGroup => {
                    let list = sel.http.get_or_insert_with(Vec::new);
                    match self.snap.http_route_group(ns, &m.name) {
                        Some(g) => self.group_matches(g, list),
                        None => self.out.report.push(
                            Severity::Note,
                            me,
                            field,
                            format!(
                                "HTTPRouteGroup {ns}/{} not found: it selects no requests (as \
                                 in SMI, they go to the root Service)",
                                m.name
                            ),
                        ),
                    }
                }
                SplitMatchKind::TcpRoute => {
                    let slot = sel.tcp.get_or_insert_with(|| Some(BTreeSet::new()));
                    match self.snap.smi_tcp_route(ns, &m.name) {
                        Some(r) if r.ports().is_empty() => *slot = None,
                        Some(r) => {
                            if let Some(set) = slot {
                                set.extend(r.ports().iter().copied());
                            }
                        }
                        None => self.out.report.push(
                            Severity::Note,
                            me,
                            field,
                            format!("TCPRoute {ns}/{} not found: it selects no ports", m.name),
                        ),
                    }
                }
                SplitMatchKind::Unknown(_) => {} // rejected by validation
            }
        }
        if sel.http.is_some() && sel.tcp.is_some() {
            self.out.report.push(
                Severity::Note,
                me,
                "spec.matches",
                "mixes HTTPRouteGroup and TCPRoute matches, which SMI does not define: ports the \
                 TCPRoutes list get a TCPRoute, the other ports an HTTPRoute with the \
                 HTTPRouteGroup matches",
            );
        }
        sel
    }

    /// Appends the Gateway API matches of every match of `g`, reporting the inexpressible ones.
    fn group_matches(&mut self, g: &HttpRouteGroup, list: &mut Vec<HttpRouteMatch>) {
        let gref = ObjectKey::new(
            ResourceKind::HttpRouteGroup,
            g.metadata.namespace_or_default(),
            &g.metadata.name,
        );
        if let Err(errors) = g.validate() {
            for e in errors {
                self.out.report.push(
                    Severity::Dropped,
                    &gref,
                    e.path.as_str(),
                    format!("{}; the group's matches are left out", e.kind),
                );
            }
            return;
        }
        let base = match g.version() {
            Some(SmiVersion::V1Alpha1 | SmiVersion::V1Alpha2) => "matches",
            _ => "spec.matches",
        };
        for (j, m) in g.matches().iter().enumerate() {
            match convert_match(m) {
                Ok(ms) => list.extend(ms),
                Err(e) => self.out.report.push(
                    Severity::Dropped,
                    &gref,
                    format!("{base}[{j}].{}", e.field),
                    format!(
                        "match {:?} is left out: {}; requests only it selects go to the root \
                         Service instead of being split",
                        m.name, e.message
                    ),
                ),
            }
        }
    }

    /// Emits the route for root port `sp` of one split (or reports why none).
    #[allow(clippy::too_many_arguments)] // one call site; a struct would only rename them
    fn port(
        &mut self,
        ts: &TrafficSplit,
        me: &ObjectKey,
        ns: &str,
        root: &Service,
        sp: &ServicePort,
        ratios: &[Ratio],
        sel: &Selection,
        missing_reported: &mut BTreeSet<usize>,
    ) {
        let port = sp.port;
        let root_name = &root.metadata.name;
        if !(1..=65535).contains(&port) {
            self.out.report.push(
                Severity::Dropped,
                me,
                "spec.service",
                format!("Service {root_name} has the invalid port {port}: no route for it"),
            );
            return;
        }
        let Some(kind) = self.route_kind(me, root_name, sp, sel) else {
            return;
        };

        // The backends serving this port, with their exact weights.
        let mut kept: Vec<(&str, Ratio)> = Vec::new();
        for (i, (b, r)) in ts.spec.backends.iter().zip(ratios).enumerate() {
            let field = format!("spec.backends[{i}].service");
            let name = local_service_name(&b.service, ns);
            match name.and_then(|n| self.snap.service(ns, n)) {
                None => {
                    if missing_reported.insert(i) {
                        self.out.report.push(
                            Severity::Dropped,
                            me,
                            field,
                            format!(
                                "backend Service {ns}/{} not found: left out (SMI includes only backends \
                                 with a matching port; the others keep their relative weights)",
                                b.service
                            ),
                        );
                    }
                }
                Some(svc) if svc.port(port).is_none() => self.out.report.push(
                    Severity::Dropped,
                    me,
                    field,
                    format!(
                        "backend Service {ns}/{} has no port {port}: left out of the route for \
                         {root_name}:{port}, as SMI leaves it out of that port's split",
                        b.service
                    ),
                ),
                Some(svc) => kept.push((svc.metadata.name.as_str(), *r)),
            }
        }
        if kept.is_empty() {
            self.out.report.push(
                Severity::Note,
                me,
                "spec.backends",
                not_split(root_name, port, "no backend Service has this port"),
            );
            return;
        }
        if kept.len() > MAX_BACKENDS {
            self.out.report.push(
                Severity::Dropped,
                me,
                "spec.backends",
                format!(
                    "{} backends serve port {port}; a Gateway API rule takes at most {MAX_BACKENDS}: \
                     no route is emitted for {root_name}:{port}",
                    kept.len()
                ),
            );
            return;
        }
        let exact: Vec<Ratio> = kept.iter().map(|(_, r)| *r).collect();
        let w = integer_weights(&exact);
        if !w.exact {
            self.out.report.push(
                Severity::Approximated,
                me,
                "spec.backends",
                format!(
                    "the exact weight ratios for port {port} need integers above {}; rounded to {:?}",
                    crate::weights::MAX_WEIGHT,
                    w.weights
                ),
            );
        }
        if w.weights.iter().all(|&x| x == 0) {
            self.out.report.push(
                Severity::Note,
                me,
                "spec.backends",
                format!(
                    "every backend weight for port {port} is 0: the Gateway API answers 500 for this \
                     traffic (Gateway API BackendRef.weight), SMI does not say what happens"
                ),
            );
        }
        let backend_refs: Vec<BackendRef> = kept
            .iter()
            .zip(&w.weights)
            .map(|((name, _), weight)| BackendRef {
                weight: Some(i32::try_from(*weight).unwrap_or(i32::MAX)),
                ..BackendRef::service(*name, port)
            })
            .collect();
        let mut metadata = ObjectMeta::namespaced(ns, route_name(&ts.metadata.name, port));
        metadata
            .annotations
            .insert(SOURCE_ANNOTATION.into(), me.to_string());
        let parent = ParentReference {
            port: Some(port),
            ..ParentReference::service(root_name.clone())
        };
        let resource: AnyResource = match kind {
            Kind::L4(L4::Tcp) => TcpRoute::new(
                metadata,
                TcpRouteSpec {
                    parent_refs: vec![parent],
                    rules: vec![L4RouteRule {
                        name: None,
                        backend_refs,
                    }],
                    ..TcpRouteSpec::default()
                },
            )
            .into(),
            Kind::L4(L4::Udp) => UdpRoute::new(
                metadata,
                UdpRouteSpec {
                    parent_refs: vec![parent],
                    rules: vec![L4RouteRule {
                        name: None,
                        backend_refs,
                    }],
                    ..UdpRouteSpec::default()
                },
            )
            .into(),
            Kind::Http(matches) => {
                let http_refs: Vec<HttpBackendRef> = backend_refs
                    .into_iter()
                    .map(|backend_ref| HttpBackendRef {
                        backend_ref,
                        filters: Vec::new(),
                    })
                    .collect();
                let rules = match matches {
                    None => vec![HttpRouteRule {
                        backend_refs: http_refs,
                        ..HttpRouteRule::default()
                    }],
                    Some(ms) => self.matched_rules(me, ms, http_refs, root_name, port),
                };
                HttpRoute::new(
                    metadata,
                    HttpRouteSpec {
                        parent_refs: vec![parent],
                        rules: Some(rules),
                        ..HttpRouteSpec::default()
                    },
                )
                .into()
            }
        };
        self.out.resources.push(resource);
    }

    /// The route kind for root port `sp`, or `None` (reported) when traffic on it is not
    /// split.
    fn route_kind<'s>(
        &mut self,
        me: &ObjectKey,
        root_name: &str,
        sp: &ServicePort,
        sel: &'s Selection,
    ) -> Option<Kind<'s>> {
        let port = sp.port;
        let protocol = sp.protocol.as_deref().unwrap_or("TCP");
        let any_matches = sel.http.is_some() || sel.tcp.is_some();
        let kind = match protocol {
            "UDP" if any_matches => {
                self.out.report.push(
                    Severity::Note,
                    me,
                    "spec.matches",
                    not_split(
                        root_name,
                        port,
                        "the matches select TCP or HTTP traffic only",
                    ),
                );
                return None;
            }
            "UDP" => Kind::L4(L4::Udp),
            "TCP" => {
                let tcp_selected = match &sel.tcp {
                    Some(None) => true,
                    Some(Some(set)) => set.contains(&port),
                    None => false,
                };
                if tcp_selected {
                    Kind::L4(L4::Tcp)
                } else if let Some(http) = &sel.http {
                    if http.is_empty() {
                        self.out.report.push(
                            Severity::Note,
                            me,
                            "spec.matches",
                            not_split(
                                root_name,
                                port,
                                "the referenced HTTPRouteGroups select nothing",
                            ),
                        );
                        return None;
                    }
                    Kind::Http(Some(http))
                } else if sel.tcp.is_some() {
                    self.out.report.push(
                        Severity::Note,
                        me,
                        "spec.matches",
                        not_split(root_name, port, "no referenced TCPRoute lists this port"),
                    );
                    return None;
                } else {
                    match sp.app_protocol.as_deref() {
                        Some(p) if !is_http_app_protocol(p) => {
                            self.out.report.push(
                                Severity::Note,
                                me,
                                "",
                                format!("port {port} of {root_name} has appProtocol {p:?}: split as TCP connections (TCPRoute)"),
                            );
                            Kind::L4(L4::Tcp)
                        }
                        Some(_) => Kind::Http(None),
                        None => {
                            self.out.report.push(
                                Severity::Note,
                                me,
                                "",
                                format!(
                                    "port {port} of {root_name} has no appProtocol: assumed HTTP (HTTPRoute); set \
                                     appProtocol: tcp on the port to split raw TCP connections instead"
                                ),
                            );
                            Kind::Http(None)
                        }
                    }
                }
            }
            other => {
                self.out.report.push(
                    Severity::Dropped,
                    me,
                    "spec.service",
                    format!("port {port} of {root_name} uses protocol {other}, which no Gateway API route kind carries"),
                );
                return None;
            }
        };
        Some(kind)
    }

    /// The rules of a split with HTTPRouteGroup matches: the matches (at most 64 per rule,
    /// 127 in all) with the weighted backends, then the catch-all to the root Service.
    fn matched_rules(
        &mut self,
        me: &ObjectKey,
        matches: &[HttpRouteMatch],
        backends: Vec<HttpBackendRef>,
        root: &str,
        port: i32,
    ) -> Vec<HttpRouteRule> {
        let budget = MAX_MATCHES_PER_ROUTE - 1;
        if matches.len() > budget {
            self.out.report.push(
                Severity::Dropped,
                me,
                "spec.matches",
                format!(
                    "{} Gateway API matches are needed but a route holds {MAX_MATCHES_PER_ROUTE} \
                     with the catch-all; the last {} are left out (their requests go to the root Service)",
                    matches.len(),
                    matches.len() - budget
                ),
            );
        }
        let used = matches.get(..budget.min(matches.len())).unwrap_or(matches);
        let mut rules: Vec<HttpRouteRule> = used
            .chunks(MAX_MATCHES_PER_RULE)
            .map(|chunk| HttpRouteRule {
                matches: Some(chunk.to_vec()),
                backend_refs: backends.clone(),
                ..HttpRouteRule::default()
            })
            .collect();
        // The catch-all must never outrank a converted match. Converted paths are either absent
        // (PathPrefix /) or regexes; gamma-rs (like most implementations) ranks regexes below
        // every prefix (Gateway API HTTPPathMatch; Gateway API HTTPRouteRule.matches precedence,
        // longest PathPrefix), so with regex matches present the catch-all is itself the regex
        // `.*`: it then ties with them and loses on rule order.
        let regex_present = used.iter().any(|m| {
            m.path
                .as_ref()
                .is_some_and(|p| p.type_or_default() == PathMatchType::RegularExpression)
        });
        let catch_all = if regex_present {
            self.out.report.push(
                Severity::Note,
                me,
                "spec.matches",
                format!(
                    "the catch-all rule of {root}:{port} uses the RegularExpression path `.*` so \
                     that it ranks with the converted regex paths and loses to them on rule order; \
                     regex precedence is implementation-specific (Gateway API HTTPPathMatch)"
                ),
            );
            HttpRouteMatch {
                path: Some(HttpPathMatch {
                    type_: Some(PathMatchType::RegularExpression),
                    value: Some(".*".into()),
                }),
                ..HttpRouteMatch::default()
            }
        } else {
            HttpRouteMatch {
                path: Some(HttpPathMatch {
                    type_: Some(PathMatchType::PathPrefix),
                    value: Some("/".into()),
                }),
                ..HttpRouteMatch::default()
            }
        };
        rules.push(HttpRouteRule {
            matches: Some(vec![catch_all]),
            backend_refs: vec![HttpBackendRef {
                backend_ref: BackendRef {
                    weight: Some(1),
                    ..BackendRef::service(root, port)
                },
                filters: Vec::new(),
            }],
            ..HttpRouteRule::default()
        });
        rules
    }
}

enum Kind<'m> {
    L4(L4),
    /// An HTTPRoute; with the merged HTTPRouteGroup matches when the split has any.
    Http(Option<&'m Vec<HttpRouteMatch>>),
}

/// The exact weight of a (validated) backend: a quantity in v1alpha1 (omitted: zero), a whole
/// number in later versions (validation made sure of it).
fn weight_of(b: &TrafficSplitBackend) -> Ratio {
    b.weight
        .as_ref()
        .and_then(|w| w.value().ok())
        .unwrap_or(Ratio::ZERO)
}

/// The Service name SMI means by `name` in namespace `ns`. SMI calls `spec.service` "the FQDN
/// that applications will use": `web`, `web.shop`, `web.shop.svc` and
/// `web.shop.svc.cluster.local` all name Service `web` when the split is in `shop`. `None` for
/// a name in another namespace (TrafficSplit backends and roots are namespace-local).
fn local_service_name<'a>(name: &'a str, ns: &str) -> Option<&'a str> {
    let mut labels = name.split('.');
    let first = labels.next()?;
    match (labels.next(), labels.next()) {
        (None, _) => Some(first),
        (Some(n), None) if n == ns => Some(first),
        (Some(n), Some("svc")) if n == ns => Some(first),
        _ => None,
    }
}

/// The report message for a root port whose traffic stays unsplit.
fn not_split(root: &str, port: i32, why: &str) -> String {
    format!(
        "traffic to {root}:{port} is not split ({why}); no route is emitted, so it keeps plain \
         Service behaviour"
    )
}

/// `<split>-<port>`, shortened to the 253-character object name limit.
fn route_name(split: &str, port: i32) -> String {
    let suffix = format!("-{port}");
    let keep = 253usize.saturating_sub(suffix.len());
    let base: String = split.chars().take(keep).collect();
    format!("{}{suffix}", base.trim_end_matches(['-', '.']))
}

#[cfg(test)]
mod tests {
    use super::*;

    // smi-spec traffic-split: "The spec.service name is the FQDN that applications will use".
    #[test]
    fn service_names_may_be_written_as_in_namespace_dns_names() {
        for n in [
            "web",
            "web.shop",
            "web.shop.svc",
            "web.shop.svc.cluster.local",
        ] {
            assert_eq!(local_service_name(n, "shop"), Some("web"), "{n}");
        }
        assert_eq!(local_service_name("web.other", "shop"), None);
        assert_eq!(local_service_name("web.shop.example.com", "shop"), None);
    }

    #[test]
    fn route_names_fit_the_object_name_limit() {
        assert_eq!(route_name("canary", 80), "canary-80");
        let long = "a".repeat(260);
        let n = route_name(&long, 65535);
        assert_eq!(n.len(), 253);
        assert!(n.ends_with("-65535"));
    }
}
