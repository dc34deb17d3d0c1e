//! `gammactl status`, ListenerSets (GEP-1713): the computed status of the ListenerSets whose
//! parent Gateway is of a class the controller runs (the arbiter's rule for ListenerSet
//! parents: the Gateway's GatewayClass `controllerName` decides).

use gamma_arbiter::Identity;
use gamma_mesh::model::Snapshot;
use gamma_resolve::RouteTable;
use gamma_resolve::listener_set_status::ListenerSetStatus;
use gamma_resolve::status::RouteCondition;

use crate::style::Style;

/// The ListenerSets `me` writes status for, rendered one block each, in namespace/name order.
pub(super) fn render(
    table: &RouteTable,
    snapshot: &Snapshot,
    me: &Identity,
    style: &Style,
) -> String {
    table
        .listener_set_status()
        .iter()
        .filter(|s| owned(snapshot, s, me))
        .map(|s| render_one(s, style))
        .collect()
}

/// Whether the ListenerSet's parent Gateway is of a GatewayClass `me` answers to.
fn owned(snapshot: &Snapshot, s: &ListenerSetStatus, me: &Identity) -> bool {
    let Some(parent) = &s.gateway else {
        return false;
    };
    snapshot
        .gateway(&parent.namespace, &parent.name)
        .and_then(|gw| snapshot.gateway_class(&gw.spec.gateway_class_name))
        .is_some_and(|c| me.answers_to(&c.spec.controller_name))
}

fn conditions(list: &[RouteCondition], style: &Style) -> String {
    list.iter()
        .map(|c| {
            let text = format!(
                "{}={} {}",
                c.type_,
                if c.status { "True" } else { "False" },
                c.reason
            );
            // Conflicted is the one condition whose True is bad news
            if c.status != (c.type_ == "Conflicted") {
                style.green(&text)
            } else {
                style.red(&text)
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn render_one(s: &ListenerSetStatus, style: &Style) -> String {
    let mut out = format!(
        "\n{} (Gateway {}): {}\n",
        style.bold(&format!("ListenerSet {}/{}", s.namespace, s.name)),
        s.gateway
            .as_ref()
            .map_or_else(|| "?".to_owned(), ToString::to_string),
        conditions(&s.conditions, style)
    );
    if let Some(c) = s.conditions.iter().find(|c| !c.status) {
        out.push_str(&format!("  {}\n", c.message));
    }
    for l in &s.listeners {
        let kinds: Vec<&str> = l.supported_kinds.iter().map(|k| k.as_str()).collect();
        out.push_str(&format!(
            "  listener {}: attachedRoutes {}, supportedKinds [{}]: {}\n",
            l.name,
            l.attached_routes,
            kinds.join(", "),
            conditions(&l.conditions, style)
        ));
    }
    out
}
