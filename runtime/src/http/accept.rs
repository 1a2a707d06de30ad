//! Content negotiation on `Accept`, as the `negotiator` package's `mediaType` does it
//! (what Apollo Server, under Strapi's `/graphql`, uses to pick the answer's
//! `Content-Type`).
//!
//! Each offered type is given the best-matching `Accept` entry: more specific first
//! (type, subtype, then parameters), then the higher `q`; an entry with `q=0`, or no
//! matching entry, refuses the type. The offered types are then ordered by `q`, then
//! specificity, then the entry's position in `Accept`, then the offer's own order.

/// One `Accept` entry.
struct Spec<'a> {
    kind: &'a str,
    subtype: &'a str,
    params: Vec<(&'a str, &'a str)>,
    q: f64,
    position: usize,
}

/// How well an offer matches: (q, specificity, the entry's position, the offer's).
#[derive(Clone, Copy)]
struct Priority {
    q: f64,
    s: u8,
    o: usize,
    i: usize,
}

fn unquote(v: &str) -> &str {
    v.strip_prefix('"')
        .and_then(|v| v.strip_suffix('"'))
        .unwrap_or(v)
}

/// Splits on `sep` outside double quotes.
fn split_outside_quotes(text: &str, sep: char) -> Vec<&str> {
    let mut out = Vec::new();
    let mut quoted = false;
    let mut start = 0;
    for (i, c) in text.char_indices() {
        match c {
            '"' => quoted = !quoted,
            c if c == sep && !quoted => {
                out.push(&text[start..i]);
                start = i + c.len_utf8();
            }
            _ => {}
        }
    }
    out.push(&text[start..]);
    out
}

fn parse_spec(text: &str, position: usize) -> Option<Spec<'_>> {
    let mut parts = split_outside_quotes(text, ';').into_iter();
    let (kind, subtype) = parts.next()?.trim().split_once('/')?;
    let mut spec = Spec {
        kind: kind.trim(),
        subtype: subtype.trim(),
        params: Vec::new(),
        q: 1.0,
        position,
    };
    for param in parts {
        let Some((key, value)) = param.split_once('=') else {
            continue;
        };
        let (key, value) = (key.trim(), unquote(value.trim()));
        if key.eq_ignore_ascii_case("q") {
            spec.q = value.parse().unwrap_or(0.0);
            break;
        }
        spec.params.push((key, value));
    }
    Some(spec)
}

/// The specificity of `spec` for the offer, `None` when it does not match.
fn specify(offer: &Spec<'_>, spec: &Spec<'_>) -> Option<u8> {
    let mut s = 0;
    if spec.kind.eq_ignore_ascii_case(offer.kind) {
        s |= 4;
    } else if spec.kind != "*" {
        return None;
    }
    if spec.subtype.eq_ignore_ascii_case(offer.subtype) {
        s |= 2;
    } else if spec.subtype != "*" {
        return None;
    }
    if !spec.params.is_empty() {
        let all = spec.params.iter().all(|(k, v)| {
            *v == "*"
                || offer
                    .params
                    .iter()
                    .find(|(ok, _)| ok.eq_ignore_ascii_case(k))
                    .is_some_and(|(_, ov)| ov.eq_ignore_ascii_case(v))
        });
        if !all {
            return None;
        }
        s |= 1;
    }
    Some(s)
}

/// The offer `accept` prefers, `None` when it accepts none of them.
pub fn preferred<'a>(accept: &str, offers: &[&'a str]) -> Option<&'a str> {
    let specs: Vec<Spec<'_>> = split_outside_quotes(accept, ',')
        .into_iter()
        .enumerate()
        .filter_map(|(i, text)| parse_spec(text, i))
        .collect();
    let mut ranked: Vec<(Priority, &'a str)> = offers
        .iter()
        .enumerate()
        .filter_map(|(i, offer)| {
            let parsed = parse_spec(offer, 0)?;
            let mut best: Option<Priority> = None;
            for spec in &specs {
                let Some(s) = specify(&parsed, spec) else {
                    continue;
                };
                let candidate = Priority {
                    q: spec.q,
                    s,
                    o: spec.position,
                    i,
                };
                let better = match best {
                    None => true,
                    Some(b) => (b.s, b.q, b.o) < (candidate.s, candidate.q, candidate.o),
                };
                if better {
                    best = Some(candidate);
                }
            }
            best.filter(|p| p.q > 0.0).map(|p| (p, *offer))
        })
        .collect();
    ranked.sort_by(|(a, _), (b, _)| {
        b.q.total_cmp(&a.q)
            .then(b.s.cmp(&a.s))
            .then(a.o.cmp(&b.o))
            .then(a.i.cmp(&b.i))
    });
    ranked.first().map(|(_, offer)| *offer)
}

#[cfg(test)]
mod tests {
    use super::preferred;

    const OFFERS: [&str; 3] = [
        "application/json; charset=utf-8",
        "application/graphql-response+json; charset=utf-8",
        "application/json; callbackSpec=1.0; charset=utf-8",
    ];

    #[test]
    fn apollo_clients_get_the_graphql_response_type() {
        assert_eq!(
            preferred(
                "application/graphql-response+json,application/json;q=0.9",
                &OFFERS
            ),
            Some(OFFERS[1])
        );
    }

    #[test]
    fn wildcards_and_plain_json_get_json() {
        for accept in [
            "*/*",
            "application/json",
            "application/*",
            "text/html, */*;q=0.8",
        ] {
            assert_eq!(preferred(accept, &OFFERS), Some(OFFERS[0]), "{accept}");
        }
        assert_eq!(
            preferred("application/json;callbackSpec=1.0", &OFFERS),
            Some(OFFERS[2])
        );
    }

    #[test]
    fn nothing_acceptable_is_none() {
        assert_eq!(preferred("text/html", &OFFERS), None);
        assert_eq!(preferred("application/json;q=0", &OFFERS), None);
        assert_eq!(preferred("", &OFFERS), None);
    }
}
