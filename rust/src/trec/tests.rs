//! Tests of the TREC reader: hand-made cases, an oracle (the plain
//! split-and-hash reader) on random texts read in windows and pieces of every
//! size, and the score parser against Rust's own.

use super::pieces::*;
use super::read::*;
use std::io;

use super::text::{fields, fields_scalar, line_fields, other_compression, parquet, parse_score};
use super::*;
use crate::encode::TextIds;

#[test]
fn qrels_codes_follow_first_appearance() {
    let text = b"q1 0 d1 1\n# comment\n\nq2 0 d2 0\nq1 0 d2 2\n";
    let p = parse(text, Kind::Qrels).unwrap();
    assert_eq!(p.users, Users::Codes(vec![0, 1, 0]));
    assert_eq!(p.items, vec![0, 1, 1]);
    assert_eq!(p.user_ids.iter().collect::<Vec<_>>(), vec![b"q1", b"q2"]);
    assert_eq!(p.grades, vec![1, 0, 2]);
}

#[test]
fn grouped_users_come_as_offsets() {
    let text = b"q1 0 d1 1\nq1 0 d2 1\nq2 0 d2 0\n";
    let p = parse(text, Kind::Qrels).unwrap();
    assert_eq!(p.users, Users::Offsets(vec![0, 2, 3]));
    assert_eq!(p.users.codes(), vec![0, 0, 1]);
}

#[test]
fn short_and_long_ids_get_one_code_each() {
    let long = "d".repeat(16);
    let text = format!(
        "q 0 {long} 1\nq 0 ddddddddddddddd 1\nq 0 {long}x 0\nr 0 {long} 2\nr 0 ddddddddddddddd 0\n"
    );
    let p = parse(text.as_bytes(), Kind::Qrels).unwrap();
    assert_eq!(p.items, vec![0, 1, 2, 0, 1]);
    assert_eq!(p.item_ids.text(0), long.as_bytes());
    assert_eq!(p.item_ids.text(1).len(), 15);
    assert_eq!(p.users.codes(), vec![0, 0, 0, 1, 1]);
}

#[test]
fn runs_keep_the_last_tag_and_ignore_extra_fields() {
    let text = b"q1 Q0 d1 1 0.5 tagA extra\r\nq1 Q0 d2 2 0.25 tagB\n# c\n";
    let p = parse(text, Kind::Run).unwrap();
    assert_eq!(p.scores, vec![0.5, 0.25]);
    assert_eq!(p.tag, Some(b"tagB".to_vec()));
}

#[test]
fn errors_name_the_first_line_of_the_first_kind() {
    let text = b"q1 Q0 d1 1 inf t\nq1 Q0 d1 1 x t\nq1 Q0 d1\n";
    assert_eq!(
        parse(text, Kind::Run).unwrap_err(),
        TrecError::Fields(3, 3, b"q1 Q0 d1".to_vec())
    );
    let text = b"q1 Q0 d1 1 inf t\nq1 Q0 d1 1 x t\n";
    assert_eq!(
        parse(text, Kind::Run).unwrap_err(),
        TrecError::Number(2, b"x".to_vec())
    );
    assert!(matches!(
        parse(b"q Q0 d 1 -inf t", Kind::Run),
        Err(TrecError::NotFinite(1, _))
    ));
}

#[test]
fn pieces_cut_at_line_ends_and_cover_everything() {
    let text = b"a\nbb\nccc\ndddd\n";
    for n in 1..6 {
        let p = pieces(text, n);
        assert_eq!(p.concat(), text.to_vec());
        assert!(p[..p.len() - 1].iter().all(|s| s.last() == Some(&b'\n')));
    }
    assert_eq!(pieces(b"", 3), vec![b"" as &[u8]]);
    assert_eq!(pieces(b"abc", 3), vec![b"abc" as &[u8]]);
}

/// Rust's parse of `text`, as bits (None: refused).
fn std_bits(text: &[u8]) -> Option<u64> {
    std::str::from_utf8(text)
        .ok()
        .and_then(|t| t.parse::<f64>().ok())
        .map(f64::to_bits)
}

fn score_bits(text: &[u8]) -> Option<u64> {
    parse_score(text).ok().map(f64::to_bits)
}

#[test]
fn scores_are_read_as_rust_reads_them() {
    let cases: &[&str] = &[
        "0",
        "-0",
        "+0",
        "0.0",
        "-0.0",
        "1",
        "+3",
        "1.5",
        "-1.5",
        ".5",
        "5.",
        ".",
        "-",
        "+",
        "",
        "1e3",
        "1E+3",
        "1e-3",
        "1e",
        "e1",
        "--1",
        "+-1",
        "1.2.3",
        "0x10",
        "1,5",
        "inf",
        "-inf",
        "+inf",
        "Infinity",
        "infinit",
        "nan",
        "NaN",
        "-nan",
        "1_0",
        " 1",
        "1 ",
        "9007199254740992",
        "9007199254740993",
        "9007199254740993.0",
        "0.1",
        "0.3",
        "123456789012345678",
        "1234567890123456789",
        "12345678901234567890",
        "0.0000000000000000000001",
        "0.00000000000000000000001",
        "1.7976931348623157e308",
        "1e309",
        "-1e309",
        "2.2250738585072014e-308",
        "4.9e-324",
        "1e-400",
        "0.99021500000000000000",
        "00000000000000000000001",
        "3.141592653589793238462643",
    ];
    for c in cases {
        assert_eq!(score_bits(c.as_bytes()), std_bits(c.as_bytes()), "{c:?}");
    }
}

#[test]
fn random_decimals_are_read_as_rust_reads_them() {
    let mut next = crate::testing::stream(987654321);
    let alphabet = b"0123456789000999.-+eE";
    for i in 0..300_000 {
        let text: Vec<u8> = if i % 3 == 0 {
            // any string over digits, signs, points and exponents
            let len = (next() % 26) as usize;
            (0..len)
                .map(|_| alphabet[(next() % alphabet.len() as u64) as usize])
                .collect()
        } else {
            // plain decimals of up to 25 digits, the point anywhere
            let len = 1 + (next() % 25) as usize;
            let mut t: Vec<u8> = (0..len).map(|_| b'0' + (next() % 10) as u8).collect();
            if !next().is_multiple_of(4) {
                let at = (next() % (len as u64 + 1)) as usize;
                t.insert(at, b'.');
            }
            if next().is_multiple_of(5) {
                t.insert(0, if next().is_multiple_of(2) { b'-' } else { b'+' });
            }
            t
        };
        assert_eq!(
            score_bits(&text),
            std_bits(&text),
            "{:?}",
            String::from_utf8_lossy(&text)
        );
    }
    // every float64 printed in its shortest form, and with 17 digits
    for _ in 0..100_000 {
        let x = f64::from_bits(next());
        if x.is_finite() {
            for t in [format!("{x}"), format!("{x:.17}"), format!("{:.6}", x)] {
                assert_eq!(score_bits(t.as_bytes()), std_bits(t.as_bytes()), "{t}");
            }
        }
    }
}

#[test]
fn the_mask_finds_the_fields_of_the_byte_loop() {
    let mut next = crate::testing::stream(12345);
    let alphabet = b" \t\r\x0c\x0bab#\xc3";
    for _ in 0..20000 {
        let len = (next() % 80) as usize;
        let mut line: Vec<u8> = (0..len)
            .map(|_| alphabet[(next() % alphabet.len() as u64) as usize])
            .collect();
        let pad = (next() % 70) as usize;
        line.extend(std::iter::repeat_n(b'x', pad));
        let a = fields(&line, 0, len);
        let b = fields_scalar(&line, 0, len);
        assert_eq!(a.n, b.n);
        assert_eq!(a.at[..a.n.min(6)], b.at[..b.n.min(6)]);
        line.truncate(len);
        line.push(b'\n');
        line.extend(std::iter::repeat_n(b'x', pad));
        let (end, a) = line_fields(&line, 0);
        assert_eq!(end, len);
        assert_eq!(a.n, b.n);
        assert_eq!(a.at[..a.n.min(6)], b.at[..b.n.min(6)]);
    }
}

/// Draws from a stream of words ([`crate::testing::stream`]).
struct Rng<F>(F);

impl<F: FnMut() -> u64> Rng<F> {
    fn next(&mut self) -> u64 {
        (self.0)()
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.below(xs.len())]
    }
}

/// What the oracle reads: codes, ids, values, tag.
type Read = (
    Vec<i32>,
    Vec<i32>,
    Vec<Vec<u8>>,
    Vec<Vec<u8>>,
    Vec<i64>,
    Vec<u64>,
    Option<Vec<u8>>,
);

/// The plain reader: split lines and fields, number ids in a map, parse with std.
fn oracle(data: &[u8], kind: Kind) -> Result<Read, TrecError> {
    use std::collections::HashMap;
    let mut error: Option<TrecError> = None;
    let (mut users, mut items, mut grades, mut scores) = (vec![], vec![], vec![], vec![]);
    let (mut user_ids, mut item_ids): (Vec<Vec<u8>>, Vec<Vec<u8>>) = (vec![], vec![]);
    let (mut user_map, mut item_map) = (HashMap::new(), HashMap::new());
    let mut tag = None;
    let mut lines: Vec<&[u8]> = data.split(|&b| b == b'\n').collect();
    if data.last() == Some(&b'\n') {
        lines.pop();
    }
    for (i, raw) in lines.iter().enumerate() {
        let line = i + 1;
        let fields: Vec<&[u8]> = raw
            .split(|b| b.is_ascii_whitespace())
            .filter(|f| !f.is_empty())
            .collect();
        if fields.is_empty() {
            continue;
        }
        let hash = fields[0][0] == b'#';
        if hash && (kind == Kind::Run || raw[0] == b'#') {
            continue;
        }
        let n = if kind == Kind::Qrels { 4 } else { 6 };
        if (kind == Kind::Qrels && (fields.len() != n || hash)) || fields.len() < n {
            let text = raw.strip_suffix(b"\r").unwrap_or(raw).to_vec();
            return Err(TrecError::Fields(line, fields.len(), text)); // the first one wins
        }
        let code = |map: &mut HashMap<Vec<u8>, i32>, ids: &mut Vec<Vec<u8>>, id: &[u8]| {
            let next = ids.len() as i32;
            *map.entry(id.to_vec()).or_insert_with(|| {
                ids.push(id.to_vec());
                next
            })
        };
        users.push(code(&mut user_map, &mut user_ids, fields[0]));
        items.push(code(&mut item_map, &mut item_ids, fields[2]));
        let text = std::str::from_utf8(fields[if kind == Kind::Qrels { 3 } else { 4 }]).ok();
        let bad = |e: &Option<TrecError>, rank: u8| e.as_ref().is_none_or(|e| e.rank().0 > rank);
        if kind == Kind::Qrels {
            match text.and_then(|t| t.parse::<i64>().ok()) {
                Some(g) => grades.push(g),
                None if bad(&error, 1) => error = Some(TrecError::Number(line, fields[3].to_vec())),
                None => {}
            }
        } else {
            tag = Some(fields[5].to_vec());
            match text.and_then(|t| t.parse::<f64>().ok()) {
                Some(s) if !s.is_finite() && bad(&error, 2) => {
                    error = Some(TrecError::NotFinite(line, s))
                }
                Some(s) => scores.push(s.to_bits()),
                None if bad(&error, 1) => error = Some(TrecError::Number(line, fields[4].to_vec())),
                None => {}
            }
        }
    }
    if let Some(e) = error {
        return Err(e);
    }
    Ok((users, items, user_ids, item_ids, grades, scores, tag))
}

/// A parse in the oracle's shape.
fn shape(p: Result<Parsed, TrecError>) -> Result<Read, TrecError> {
    let p = p?;
    let ids = |i: &TextIds| i.iter().map(|s| s.to_vec()).collect::<Vec<_>>();
    Ok((
        p.users.codes(),
        p.items.clone(),
        ids(&p.user_ids),
        ids(&p.item_ids),
        p.grades.clone(),
        p.scores.iter().map(|s| s.to_bits()).collect(),
        p.tag.clone(),
    ))
}

/// A random qrels or run text: ids short and long, grouped or not, comments, blank
/// lines, extra fields, CRLF, and now and then a bad line.
fn random_text(
    rng: &mut Rng<impl FnMut() -> u64>,
    kind: Kind,
    lines: usize,
    errors: bool,
) -> Vec<u8> {
    let long = "clueweb09-en0000-00-0";
    let mut out = String::new();
    let mut user = 0;
    for _ in 0..lines {
        if rng.below(20) == 0 {
            user = rng.below(50); // back to an earlier user: not grouped
        } else if rng.below(8) == 0 {
            user += 1;
        }
        let r = rng.below(200);
        let item = match rng.below(6) {
            0 => format!("{long}{}", rng.below(300)),
            1 => format!("doc-{:08}", rng.below(300)), // 12 bytes
            2 => format!("document-{:06}", rng.below(300)), // 15 bytes
            3 => format!("itm-{:07}", rng.below(300)), // 11 bytes
            _ => format!("d{}", rng.below(2000)),
        };
        let uid = if user % 7 == 3 {
            format!("{long}q{user}")
        } else {
            format!("q{user}")
        };
        let line = if r < 3 {
            String::new()
        } else if r < 6 {
            format!("# comment {item}")
        } else if errors && r < 7 {
            format!("{uid} Q0 {item}") // too few fields
        } else if errors && r < 8 {
            format!("{uid} 0 {item} x 1.5 t") // too many (qrels) or a bad score (run)
        } else {
            let value = match kind {
                Kind::Qrels => rng.pick(&["0", "1", "2", "-1", "+3"]).to_string(),
                Kind::Run => match rng.below(10) {
                    0 => rng
                        .pick(&["1e3", "-0.0", ".5", "5.", "1.25E-2"])
                        .to_string(),
                    1 if errors => rng.pick(&["inf", "x", "nan"]).to_string(),
                    _ => format!("{:.6}", (rng.next() % 1_000_000) as f64 / 1e6),
                },
            };
            let tag = rng.pick(&["run", "tagB"]);
            match kind {
                Kind::Qrels => format!("{uid} 0\t{item} {value}"),
                Kind::Run if rng.below(10) == 0 => {
                    format!(
                        "  {uid} Q0 {item} 1 {value} {tag} extra fields {}",
                        "x".repeat(60)
                    )
                }
                Kind::Run => format!("{uid} Q0 {item} {} {value} {tag}", rng.below(100)),
            }
        };
        out.push_str(&line);
        out.push_str(if rng.below(10) == 0 { "\r\n" } else { "\n" });
    }
    if rng.below(3) == 0 {
        out.pop(); // no newline at the end
    }
    out.into_bytes()
}

#[test]
fn windows_and_pieces_of_any_size_read_what_the_oracle_reads() {
    let mut rng = Rng(crate::testing::stream(424242));
    let mut read = 0;
    for case in 0..60 {
        let kind = if case % 2 == 0 {
            Kind::Qrels
        } else {
            Kind::Run
        };
        let lines = 1 + rng.below(400);
        let text = random_text(&mut rng, kind, lines, case % 3 == 0);
        let expected = oracle(&text, kind);
        read += expected.is_ok() as usize;
        assert_eq!(shape(parse(&text, kind)), expected, "case {case}");
        for _ in 0..6 {
            let sizes = Sizes {
                first: 1 + rng.below(200),
                piece: 1 + rng.below(300),
                max_pieces: 1 + rng.below(5),
                alone: [0.0, 0.5, f64::INFINITY][rng.below(3)],
            };
            let mapped = parse_slice(&text, kind, sizes, |_| {}).unwrap();
            assert_eq!(shape(mapped), expected, "case {case}, {sizes:?}");
            let streamed = parse_reader(&text[..], kind, sizes).unwrap();
            assert_eq!(shape(streamed), expected, "case {case}, {sizes:?} (reader)");
        }
    }
    assert!(
        (30..60).contains(&read),
        "{read} of 60 texts read without error"
    );
}

#[test]
fn grouped_users_come_as_offsets_whatever_the_windows() {
    let text = b"a Q0 x 1 1 t\na Q0 y 2 0.5 t\nb Q0 x 1 1 t\nb Q0 z 2 1 t\nc Q0 x 1 1 t\n";
    let sizes = Sizes {
        first: 3,
        piece: 5,
        max_pieces: 3,
        alone: f64::INFINITY,
    };
    let p = parse_slice(text, Kind::Run, sizes, |_| {})
        .unwrap()
        .unwrap();
    assert_eq!(p.users, Users::Offsets(vec![0, 2, 4, 5]));
    assert_eq!(p.items, vec![0, 1, 0, 2, 0]);
}

#[test]
fn a_byte_order_mark_and_every_line_end_read_as_plain_lines() {
    let plain = b"q1 Q0 d1 1 0.5 t\nq1 Q0 d2 2 0.25 t\nq2 Q0 d1 1 1 t\n".to_vec();
    let expected = shape(parse(&plain, Kind::Run));
    let with_bom = [b"\xef\xbb\xbf".as_slice(), &plain].concat();
    let crlf: Vec<u8> = plain
        .iter()
        .flat_map(|&b| {
            if b == b'\n' {
                vec![b'\r', b'\n']
            } else {
                vec![b]
            }
        })
        .collect();
    let cr: Vec<u8> = plain
        .iter()
        .map(|&b| if b == b'\n' { b'\r' } else { b })
        .collect();
    let bom_cr = [b"\xef\xbb\xbf".as_slice(), &cr].concat();
    let sizes = Sizes {
        first: 7,
        piece: 9,
        max_pieces: 3,
        alone: 0.5,
    };
    for (name, text) in [
        ("bom", &with_bom),
        ("crlf", &crlf),
        ("cr", &cr),
        ("bom cr", &bom_cr),
    ] {
        assert_eq!(shape(parse(text, Kind::Run)), expected, "{name}");
        let mapped = parse_slice(text, Kind::Run, sizes, |_| {}).unwrap();
        assert_eq!(shape(mapped), expected, "{name} in windows");
        let streamed = parse_reader(&text[..], Kind::Run, sizes).unwrap();
        assert_eq!(shape(streamed), expected, "{name} from a reader");
    }
    // a line of a text with `\r` line ends is named by its number
    let bad = b"q1 Q0 d1 1 0.5 t\rq1 Q0 d2 2 x t\r";
    assert_eq!(
        parse(bad, Kind::Run).unwrap_err(),
        TrecError::Number(2, b"x".to_vec())
    );
    // the mark is skipped at the start only
    let inner = b"q1 Q0 d1 1 0.5 t\n\xef\xbb\xbfq2 Q0 d1 1 1 t\n";
    assert_eq!(
        parse(inner, Kind::Run).unwrap().user_ids.text(1),
        b"\xef\xbb\xbfq2"
    );
}

#[test]
fn other_compressions_are_told_by_their_magic_numbers() {
    assert_eq!(
        other_compression(b"BZh91AY&SY\x01").map(|c| c.0),
        Some("bzip2")
    );
    assert_eq!(other_compression(b"BZh9 user").map(|c| c.0), None);
    assert_eq!(
        other_compression(b"\xfd7zXZ\x00\x00").map(|c| c.0),
        Some("xz")
    );
    assert_eq!(
        other_compression(b"\x28\xb5\x2f\xfd\x00").map(|c| c.0),
        Some("Zstandard")
    );
    assert_eq!(other_compression(b"q1 Q0 d1 1 0.5 t\n"), None);
    let dir = std::env::temp_dir().join(format!("receval-trec-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("run.xz");
    std::fs::write(&path, b"\xfd7zXZ\x00\x00\x04").unwrap();
    let err = read_file(&path, Kind::Run).unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::InvalidData);
    assert!(err.to_string().contains("compressed with xz"));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_parquet_file_is_told_by_its_first_bytes() {
    assert!(parquet(b"PAR1\x15\x04").is_some());
    assert_eq!(parquet(b"PAR 0 d1 1\n"), None);
    let dir = std::env::temp_dir().join(format!("receval-parquet-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("qrels.txt");
    std::fs::write(&path, b"PAR1\x15\x04\x15\x00").unwrap();
    let err = read_file(&path, Kind::Qrels).unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::InvalidData);
    assert!(err.to_string().starts_with("the file is Parquet"));
    std::fs::remove_dir_all(&dir).ok();
}
