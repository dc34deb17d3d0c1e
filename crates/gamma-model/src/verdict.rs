//! [`Verdicts`]: the validation verdicts of one stored route, kept by the
//! [`Snapshot`](crate::Snapshot) so that builds do not validate an object again.
//!
//! A verdict is a pure function of the object and the [`ValidateOptions`], so it can be
//! computed on first ask and kept for as long as the object is stored. The cells sit behind
//! an `Arc` beside the object: clones of a snapshot share them (the object is the same), and
//! an upsert gives the new object fresh cells.

use std::sync::atomic::{AtomicU32, Ordering};

use crate::resource::AnyResource;
use crate::validate::{Channel, Release, Validate, ValidateOptions};

/// One slot per (release, channel, `refuse_control_characters`): the options typed validation
/// reads (`field_validation` concerns unknown fields, which typed objects no longer have).
/// Each slot is two bits of one word, "known" and "valid": 4 bytes per stored route for every
/// release, where a lock per slot would take 8 each.
#[derive(Debug, Default)]
pub(crate) struct Verdicts(AtomicU32);

impl Verdicts {
    /// Whether `object` (the one these cells belong to) is valid under `opts`: computed on
    /// the first ask for these options, then read. Two threads asking at once both compute
    /// the same answer; setting its bits twice is harmless.
    pub(crate) fn is_valid(&self, object: &AnyResource, opts: &ValidateOptions) -> bool {
        // the slot is of the bundle the object's kind is judged by
        let opts = &*opts.for_kind(object.kind());
        let Some(slot) = slot(opts) else {
            return object.validate_with(opts).is_ok();
        };
        let (known, valid) = (1u32 << (2 * slot), 1u32 << (2 * slot + 1));
        let bits = self.0.load(Ordering::Acquire);
        if bits & known != 0 {
            return bits & valid != 0;
        }
        let ok = object.validate_with(opts).is_ok();
        self.0
            .fetch_or(if ok { known | valid } else { known }, Ordering::AcqRel);
        ok
    }
}

/// The slot of `opts`, below 16; `None` past that (a release added without growing the word).
fn slot(opts: &ValidateOptions) -> Option<u32> {
    let release = Release::ALL.iter().position(|r| *r == opts.release)?;
    let channel = match opts.channel {
        Channel::Standard => 0,
        Channel::Experimental => 1,
    };
    let slot = (release * 2 + channel) * 2 + usize::from(opts.refuse_control_characters);
    u32::try_from(slot).ok().filter(|s| *s < 16)
}

/// A cache: two snapshots with the same objects are equal whatever was asked of them.
impl PartialEq for Verdicts {
    fn eq(&self, _: &Verdicts) -> bool {
        true
    }
}

impl Eq for Verdicts {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validate::Bundle;

    /// Duplicate rule names: valid on v1.6's standard channel, invalid on v1.7's (whose
    /// standard HTTPRoute CRD carries "Rule name must be unique within the route"). Each
    /// release's verdict is kept apart, whichever is asked first.
    #[test]
    fn each_release_keeps_its_own_verdict_whichever_is_asked_first() {
        let route = AnyResource::HttpRoute(
            serde_json::from_value(serde_json::json!({
                "metadata": {"name": "r", "namespace": "shop"},
                "spec": {"rules": [{"name": "a"}, {"name": "a"}]}
            }))
            .unwrap(),
        );
        let v1_6 = ValidateOptions::bundle(Bundle::new(Release::V1_6, Channel::Standard));
        let v1_7 = ValidateOptions::bundle(Bundle::new(Release::V1_7, Channel::Standard));
        for order in [[&v1_6, &v1_7], [&v1_7, &v1_6]] {
            let cells = Verdicts::default();
            for _ in 0..2 {
                for opts in order {
                    assert_eq!(cells.is_valid(&route, opts), opts.release == Release::V1_6);
                }
            }
        }
        let every: Vec<_> = Release::ALL
            .iter()
            .flat_map(|r| {
                [Channel::Standard, Channel::Experimental].map(|c| {
                    let mut o = ValidateOptions::bundle(Bundle::new(*r, c));
                    o.refuse_control_characters = true;
                    o
                })
            })
            .collect();
        assert!(every.iter().all(|o| slot(o).is_some()));
    }
}
