//! The LAVA job templates (`lava/qemu.yaml`, `lava/uboot-board.yaml`; docs/lava.md):
//! - their `monitors` replayed the way lava-dispatcher's `lava-test-monitor` reads a console
//!   (pexpect: the earliest match of the end or the test-case pattern wins, the end on a tie)
//!   on kept firmware logs and on a live `mairbench.quick` run: one test case per verdict of
//!   core's table with its status mapped, and one for the `end` record's status;
//! - both jobs validated against the job schema of Debian's lava-common
//!   (`lava_common.schemas.validate`);
//! - the QEMU job run by Debian's `lava-run` (unpacked by ./test.sh before the tests) with the device
//!   dictionary of `host/tests/data/lava/`, twice (a passing run and a failing one), and the
//!   test cases it records compared with the records of the console it logged;
//! - the U-Boot job's boot commands run by Debian's U-Boot for QEMU.
//!   `MAIRBENCH_LAVA_RUN=0` leaves that part out.
//!
//! Where lava-common or lava-dispatcher is missing those tests print `SKIPPED` and pass, except
//! under `CI=true` ([`common::deps`]).

use crate::common;
use crate::common::root;
use mairbench_core::verdict::{STATUSES, VERDICTS};
use regex::Regex;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The job templates and the placeholders each documents.
const JOBS: [(&str, &[&str]); 2] = [
    ("lava/qemu.yaml", &["IMAGE_URL", "BOOTARGS"]),
    (
        "lava/uboot-board.yaml",
        &["DEVICE_TYPE", "IMAGE_URL", "DTB_URL", "BOOTARGS"],
    ),
];

/// The results lava-dispatcher accepts from a monitor (`lava_dispatcher/actions/test/monitor.py`).
const LAVA_RESULTS: [&str; 4] = ["pass", "fail", "skip", "unknown"];

/// Longest one `lava-run` may take before it and its QEMU are killed (a passing run takes
/// about 3 s on the project's machine).
const LAVA_RUN_LIMIT: Duration = Duration::from_secs(100);

/// One `monitors` entry of a job.
#[derive(Debug, PartialEq)]
struct Monitor {
    name: String,
    start: String,
    end: String,
    pattern: String,
    fixupdict: Vec<(String, String)>,
}

/// A YAML scalar as the templates write it: plain, or single-quoted (`''` is one quote).
fn scalar(text: &str) -> String {
    let t = text.trim();
    match t.strip_prefix('\'').and_then(|t| t.strip_suffix('\'')) {
        Some(inner) => inner.replace("''", "'"),
        None => t.to_string(),
    }
}

/// The one monitor of a job template, read from its `monitors:` block (the templates keep one
/// key a line; `the_python_yaml_reader_agrees` checks this reader against a YAML parser).
fn monitor_of(template: &str) -> Monitor {
    let lines: Vec<&str> = template.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.trim() == "monitors:")
        .expect("a monitors: block");
    let mut m = Monitor {
        name: String::new(),
        start: String::new(),
        end: String::new(),
        pattern: String::new(),
        fixupdict: Vec::new(),
    };
    let mut in_fixup = false;
    for line in &lines[at + 1..] {
        let t = line.trim_start();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        let t = t.strip_prefix("- ").unwrap_or(t);
        let (key, value) = t.split_once(':').expect("key: value");
        let value = value.strip_prefix(' ').unwrap_or(value);
        if in_fixup && line.starts_with("        ") {
            m.fixupdict.push((scalar(key), scalar(value)));
            continue;
        }
        in_fixup = false;
        match key {
            "name" => m.name = scalar(value),
            "start" => m.start = scalar(value),
            "end" => m.end = scalar(value),
            "pattern" => m.pattern = scalar(value),
            "fixupdict" => in_fixup = true,
            other => panic!("unexpected key {other} in the monitor"),
        }
    }
    m
}

fn template(path: &str) -> String {
    std::fs::read_to_string(root().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// One test case as lava-dispatcher records it: `case` is the id lowered with runs of
/// non-word characters made `_`, `id` the id as matched, `result` after the fixupdict.
#[derive(Debug, PartialEq, Eq, Clone)]
struct Case {
    case: String,
    id: String,
    result: String,
}

/// pexpect compiles string patterns with re.DOTALL.
fn compile(pattern: &str) -> Regex {
    Regex::new(&format!("(?s){pattern}")).unwrap_or_else(|e| panic!("{pattern}: {e}"))
}

/// Replays `lava-test-monitor` on a whole console: waits for `start`, then, repeatedly, takes
/// the earliest match of `end` or `pattern` after the previous one (`end` first on a tie, as
/// pexpect's pattern list orders them); a `pattern` match with a `result` in LAVA's set after
/// the fixupdict is a test case, other results are dropped (LAVA logs an error); `end` stops.
/// Err when the console ends first (LAVA: "lava test monitoring reached end of file").
fn replay(m: &Monitor, console: &str) -> Result<Vec<Case>, String> {
    let start = compile(&m.start);
    let (end, pattern) = (compile(&m.end), compile(&m.pattern));
    let non_word = Regex::new(r"\W+").unwrap();
    let mut at = start
        .find(console)
        .ok_or("no start message: monitoring never began")?
        .end();
    let mut cases = Vec::new();
    loop {
        let e = end.find_at(console, at);
        let p = pattern.captures_at(console, at);
        let p_start = p.as_ref().map(|c| c.get(0).unwrap().start());
        match (e, p_start) {
            (None, None) => return Err(format!("end of file after {} test cases", cases.len())),
            (Some(e), ps) if ps.is_none_or(|ps| e.start() <= ps) => return Ok(cases),
            _ => {}
        }
        let c = p.unwrap();
        at = c.get(0).unwrap().end();
        let (Some(id), Some(result)) = (c.name("test_case_id"), c.name("result")) else {
            continue;
        };
        let result = m
            .fixupdict
            .iter()
            .find(|(from, _)| from == result.as_str())
            .map_or(result.as_str(), |(_, to)| to.as_str());
        if !LAVA_RESULTS.contains(&result) {
            continue;
        }
        let id = id.as_str().trim();
        cases.push(Case {
            case: non_word.replace_all(&id.to_lowercase(), "_").into_owned(),
            id: id.to_string(),
            result: result.to_string(),
        });
    }
}

/// The cases a console must give, from its own records: one per `verdict` record (its name,
/// its status through the fixupdict), then `end` with the last `end` record's status.
fn expected(m: &Monitor, console: &str) -> Vec<Case> {
    let map = |status: &str| {
        m.fixupdict
            .iter()
            .find(|(from, _)| from == status)
            .map_or(status.to_string(), |(_, to)| to.clone())
    };
    let records = common::records(console);
    let mut cases: Vec<Case> = records
        .iter()
        .filter(|r| r["kind"] == "verdict")
        .map(|r| {
            let id = r["name"].as_str().unwrap().to_string();
            Case {
                case: id.replace('-', "_"),
                result: map(r["status"].as_str().unwrap()),
                id,
            }
        })
        .collect();
    let end = records.iter().rev().find(|r| r["kind"] == "end");
    let status = end.expect("an end record")["status"].as_str().unwrap();
    cases.push(Case {
        case: "end".into(),
        id: "end".into(),
        result: map(status),
    });
    cases
}

/// The verdict ids of core's table, then `end`: every console's case ids, in this order.
fn case_ids() -> Vec<String> {
    let mut ids: Vec<String> = VERDICTS.iter().map(|v| v.id.to_string()).collect();
    ids.push("end".into());
    ids
}

/// Checks `console`'s replayed cases against its own records and core's table; the end case
/// must be `end_result`.
fn assert_cases(console: &str, end_result: &str, what: &str) -> Vec<Case> {
    let m = monitor_of(&template("lava/qemu.yaml"));
    let cases = replay(&m, console).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(cases, expected(&m, console), "{what}");
    let ids: Vec<String> = cases.iter().map(|c| c.id.clone()).collect();
    assert_eq!(
        ids,
        case_ids(),
        "{what}: one case per verdict of core's table, then end"
    );
    assert_eq!(cases.last().unwrap().result, end_result, "{what}");
    cases
}

fn data(name: &str) -> String {
    let path = root().join("host/tests/data").join(name);
    String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned()
}

#[test]
fn both_jobs_share_one_monitor_and_name_their_placeholders() {
    let monitors: Vec<Monitor> = JOBS.iter().map(|(p, _)| monitor_of(&template(p))).collect();
    assert_eq!(monitors[0], monitors[1], "the two jobs' monitors differ");
    let m = &monitors[0];
    assert_eq!(m.name, "mairbench");
    // The fixupdict maps exactly core's statuses, each to a result LAVA accepts.
    let from: Vec<&str> = m.fixupdict.iter().map(|(f, _)| f.as_str()).collect();
    let mut statuses: Vec<&str> = STATUSES.iter().map(|s| s.name()).collect();
    let mut sorted = from.clone();
    sorted.sort_unstable();
    statuses.sort_unstable();
    assert_eq!(sorted, statuses);
    for (_, to) in &m.fixupdict {
        assert!(LAVA_RESULTS.contains(&to.as_str()), "{to}");
    }
    // Every {{ NAME }} is one the header documents, and each documented one is used.
    let placeholder = Regex::new(r"\{\{ ([A-Z_]+) \}\}").unwrap();
    for (path, names) in JOBS {
        let text = template(path);
        let (header, body) = text.split_once("\ndevice_type:").unwrap();
        let used: std::collections::BTreeSet<&str> = placeholder
            .captures_iter(body)
            .map(|c| c.get(1).unwrap().as_str())
            .collect();
        let wanted: std::collections::BTreeSet<&str> = names.iter().copied().collect();
        assert_eq!(used, wanted, "{path}");
        for name in names {
            assert!(
                header.contains(&format!("{{{{ {name} }}}}")),
                "{path}: {name} undocumented"
            );
        }
    }
}

#[test]
fn every_verdict_and_the_end_become_test_cases_in_kept_logs() {
    let cases = assert_cases(&data("qemu10-firmware-docs.log"), "pass", "docs log");
    let results: Vec<&str> = cases.iter().map(|c| c.result.as_str()).collect();
    // Under QEMU: the timing verdicts n/a (skip), maintenance judged on data (pass).
    assert_eq!(
        results,
        ["skip", "skip", "skip", "skip", "pass", "skip", "skip", "skip", "skip", "pass"]
    );
    assert_eq!(cases[0].case, "caches_on", "LAVA's case name: - becomes _");
    // A failing run (the normal-nc alias mapped as Device): the end case fails.
    assert_cases(&data("qemu10-quick-bad-attr.log"), "fail", "bad-attr log");
    for log in [
        "qemu10-quick.log",
        "qemu10-quick-icount.log",
        "qemu-smp.log",
    ] {
        assert_cases(&data(log), "pass", log);
    }
}

#[test]
fn warn_and_fail_verdicts_map_to_lava_results() {
    // Hand-written verdict lines of core's writer (host/tests/data/README.md): every status.
    let m = monitor_of(&template("lava/qemu.yaml"));
    let pattern = compile(&m.pattern);
    let log = data("handmade-verdicts-b.log");
    let mut seen = Vec::new();
    for line in log.lines().filter(|l| l.contains(r#""kind":"verdict""#)) {
        let record = &common::records(line)[0];
        let c = pattern.captures(line).unwrap_or_else(|| panic!("{line}"));
        assert_eq!(c["test_case_id"], record["name"]);
        assert_eq!(c["result"], record["status"]);
        seen.push(c["result"].to_string());
    }
    assert_eq!(seen.len(), VERDICTS.len());
    for (status, lava) in [("pass", "pass"), ("warn", "unknown"), ("fail", "fail")] {
        assert!(
            seen.iter().any(|s| s == status),
            "the log has no {status} verdict"
        );
        let mapped = m.fixupdict.iter().find(|(f, _)| f == status).unwrap();
        assert_eq!(mapped.1, lava);
    }
}

#[test]
fn a_run_without_an_end_or_a_start_gives_no_complete_monitor() {
    let m = monitor_of(&template("lava/qemu.yaml"));
    let docs = data("qemu10-firmware-docs.log");
    // Cut before the status line: the monitor reaches the end of the file (LAVA fails it).
    let cut = &docs[..docs.find("mairbench: status ").unwrap()];
    assert!(replay(&m, cut)
        .unwrap_err()
        .contains("end of file after 10 test cases"));
    assert!(replay(&m, &data("truncated.log")).is_err());
    assert!(replay(&m, "U-Boot 2023.01\nStarting kernel ...\n").is_err());
    // Other records never make a case: the pattern matches verdict and end records only.
    let pattern = compile(&m.pattern);
    for line in docs.lines().filter(|l| l.starts_with("@mb {")) {
        let kind = common::records(line)[0]["kind"].clone();
        let matched = pattern.is_match(line);
        assert_eq!(matched, kind == "verdict" || kind == "end", "{line}");
    }
}

/// One live `mairbench.quick` run through qemu/run (records on); it also leaves
/// `mairbench.bin` next to the ELF, the image the LAVA job deploys.
fn live() -> &'static common::Run {
    static RUN: OnceLock<common::Run> = OnceLock::new();
    RUN.get_or_init(|| common::boot(&[("MAIRBENCH_RECORDS", "1")], &["mairbench.quick"]))
}

#[test]
fn every_verdict_and_the_end_become_test_cases_in_a_live_run() {
    let run = live();
    run.assert_pass();
    assert_cases(&run.console, "pass", "live mairbench.quick run");
}

/// A template with its placeholders replaced.
fn render(path: &str, values: &[(&str, &str)]) -> String {
    let mut text = template(path);
    for (name, value) in values {
        text = text.replace(&format!("{{{{ {name} }}}}"), value);
    }
    let left = text
        .lines()
        .find(|l| !l.trim_start().starts_with('#') && l.contains("{{ "));
    assert!(left.is_none(), "{path}: a placeholder is left: {left:?}");
    text
}

/// Debian's Python (where apt installs lava-common) running `script` with `args`.
fn python(script: &str, args: &[&Path]) -> std::process::Output {
    Command::new("/usr/bin/python3")
        .arg("-c")
        .arg(script)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("/usr/bin/python3 runs")
}

/// Validates each file with lava_common.schemas.validate (strict, as lava-server does);
/// prints "ok" or the error a line per file, and the monitors as JSON.
const VALIDATE: &str = r#"
import json, sys, yaml
from lava_common.schemas import validate
for path in sys.argv[1:]:
    job = yaml.safe_load(open(path))
    try:
        validate(job, strict=True)
        print("ok", json.dumps([a["test"]["monitors"] for a in job["actions"] if "test" in a]))
    except Exception as e:
        print("invalid", str(e).replace("\n", " "))
"#;

#[test]
fn both_jobs_validate_against_lava_commons_schema() {
    if !common::deps::need("lava") {
        return;
    }
    let values = [
        ("DEVICE_TYPE", "bcm2711-rpi-4-b"),
        ("IMAGE_URL", "http://files.example/mairbench.bin"),
        ("DTB_URL", "http://files.example/bcm2711-rpi-4-b.dtb"),
        ("BOOTARGS", "mairbench.quick"),
    ];
    let mut files = Vec::new();
    for (path, _) in JOBS {
        let text = render(path, &values);
        let file = common::dtb::tmp(&path.replace('/', "-"));
        std::fs::write(&file, &text).unwrap();
        files.push(file);
        // The same job broken two ways the schema must refuse: a result LAVA does not know,
        // a monitor without its end.
        let bad = text.replace("n/a: skip", "n/a: warn");
        assert_ne!(bad, text);
        let file = common::dtb::tmp(&format!("bad-result-{}", path.replace('/', "-")));
        std::fs::write(&file, bad).unwrap();
        files.push(file);
        let bad = text.replace("      end: ", "      ending: ");
        let file = common::dtb::tmp(&format!("bad-end-{}", path.replace('/', "-")));
        std::fs::write(&file, bad).unwrap();
        files.push(file);
    }
    let args: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    let out = python(VALIDATE, &args);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), files.len(), "{stdout}");
    for (i, line) in lines.iter().enumerate() {
        let good = i % 3 == 0;
        assert_eq!(
            line.starts_with("ok "),
            good,
            "{}: {line}",
            files[i].display()
        );
        if good {
            // The YAML parser reads the monitor as monitor_of does.
            let monitors: Value = serde_json::from_str(&line[3..]).unwrap();
            let m = &monitors[0][0];
            let ours = monitor_of(&template(JOBS[i / 3].0));
            assert_eq!(m["name"], ours.name.as_str());
            assert_eq!(m["start"], ours.start.as_str());
            assert_eq!(m["end"], ours.end.as_str());
            assert_eq!(m["pattern"], ours.pattern.as_str());
            for (from, to) in &ours.fixupdict {
                assert_eq!(m["fixupdict"][from], to.as_str(), "{from}");
            }
            assert_eq!(
                m["fixupdict"].as_object().unwrap().len(),
                ours.fixupdict.len()
            );
        }
    }
    for f in files {
        let _ = std::fs::remove_file(f);
    }
}

#[test]
fn the_device_dictionary_carries_the_qemu_jobs_context() {
    let device = data("lava/qemu-device.yaml");
    let job = template("lava/qemu.yaml");
    for (key, option) in [("cpu", "-cpu"), ("machine", "-machine"), ("memory", "-m")] {
        let value = job
            .lines()
            .find_map(|l| l.strip_prefix(&format!("  {key}: ")))
            .unwrap_or_else(|| panic!("the job's context has no {key}"));
        assert!(
            device.contains(&format!("          - {option} {value}\n")),
            "the device dictionary lacks {option} {value}"
        );
    }
    assert!(job.contains("\n  arch: arm64\n"));
    assert!(device.contains("            qemu-system-aarch64\n"));
}

/// Parses lava-run's log (one YAML mapping a line) into JSON: the results, and the
/// console lines (`target`) as the firmware wrote them, joined.
const LOG: &str = r#"
import json, sys, yaml
results, console = [], []
for line in open(sys.argv[1], errors="replace"):
    try:
        entry = yaml.safe_load(line)
    except yaml.YAMLError:
        continue
    if not isinstance(entry, dict):
        continue
    if entry.get("lvl") == "results":
        results.append(entry["msg"])
    elif entry.get("lvl") == "target" and isinstance(entry.get("msg"), str):
        # lava_dispatcher/shell.py logs each console line with '"' written '\\"'.
        console.append(entry["msg"].replace('\\"', '"'))
print(json.dumps({"results": results, "console": "\n".join(console)}))
"#;

/// Runs `lava-run` on the QEMU job with `bootargs`, killed with its QEMU after
/// [`LAVA_RUN_LIMIT`]; returns its parsed log (`results`, `console`) and its wall time.
fn lava_run(lava_run: &Path, bootargs: &str, tag: &str) -> (Value, Duration) {
    let bin = common::firmware().with_extension("bin");
    assert!(bin.exists(), "no {}: qemu/run writes it", bin.display());
    let job = common::dtb::tmp(&format!("lava-{tag}.yaml"));
    let url = format!("file://{}", bin.canonicalize().unwrap().display());
    let text = render(
        "lava/qemu.yaml",
        &[("IMAGE_URL", &url), ("BOOTARGS", bootargs)],
    );
    std::fs::write(&job, text).unwrap();
    let out_dir = common::dtb::tmp(&format!("lava-{tag}-out"));
    let log = common::dtb::tmp(&format!("lava-{tag}.log"));
    let out = common::dtb::tmp(&format!("lava-{tag}.out"));
    let started = Instant::now();
    // lava-run logs to stderr (a StreamHandler), a YAML mapping a line: into a file, so that
    // a full pipe never stalls it (and with it the console it reads).
    let mut child = Command::new(lava_run)
        .args(["--job-id", &std::process::id().to_string(), "--output-dir"])
        .arg(&out_dir)
        .arg("--device")
        .arg(root().join("host/tests/data/lava/qemu-device.yaml"))
        .arg(&job)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .expect("lava-run starts");
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > LAVA_RUN_LIMIT {
            stop(child);
            panic!("lava-run still running after {LAVA_RUN_LIMIT:?}: stopped with its QEMU");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let wall = started.elapsed();
    let stdout = std::fs::read_to_string(&out).unwrap_or_default();
    let parsed = python(LOG, &[&log]);
    assert!(
        parsed.status.success(),
        "{}",
        String::from_utf8_lossy(&parsed.stderr)
    );
    let value: Value = serde_json::from_slice(&parsed.stdout).unwrap();
    assert!(
        status.success(),
        "lava-run {bootargs}: {status}\n{stdout}\nresults: {}",
        value["results"]
    );
    for f in [&job, &log, &out] {
        let _ = std::fs::remove_file(f);
    }
    let _ = std::fs::remove_dir_all(&out_dir);
    (value, wall)
}

/// The processes whose parent is `pid` (from /proc/*/stat), and theirs.
fn descendants(pid: u32) -> Vec<u32> {
    let mut all = Vec::new();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return all;
    };
    let parents: Vec<(u32, u32)> = dir
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|p| {
            let stat = std::fs::read_to_string(format!("/proc/{p}/stat")).ok()?;
            // pid (comm) state ppid ...: comm may hold spaces, so read after its ')'.
            let ppid = stat
                .rsplit_once(')')?
                .1
                .split_whitespace()
                .nth(1)?
                .parse()
                .ok()?;
            Some((p, ppid))
        })
        .collect();
    let mut todo = vec![pid];
    while let Some(parent) = todo.pop() {
        for &(p, _) in parents.iter().filter(|(_, pp)| *pp == parent) {
            all.push(p);
            todo.push(p);
        }
    }
    all
}

/// Stops a lava-run that overran: SIGTERM first (it cancels the job and stops QEMU), then,
/// after 10 s, SIGKILL to it and every process it started, each by its id.
fn stop(mut child: std::process::Child) {
    let kill = |signal: &str, pids: &[u32]| {
        let pids: Vec<String> = pids.iter().map(u32::to_string).collect();
        if !pids.is_empty() {
            let _ = Command::new("kill").arg(signal).args(&pids).status();
        }
    };
    let before = descendants(child.id());
    kill("-TERM", &[child.id()]);
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        if child.try_wait().ok().flatten().is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    // Those started before the signal may have lost their parent since.
    let now = descendants(child.id());
    let mut pids: Vec<u32> = before
        .into_iter()
        .filter(|p| !now.contains(p) && Path::new(&format!("/proc/{p}")).exists())
        .collect();
    pids.extend(now);
    if child.try_wait().ok().flatten().is_none() {
        pids.push(child.id());
    }
    kill("-KILL", &pids);
    let _ = child.wait();
}

/// The cases lava-run recorded for the monitor `mairbench`.
fn lava_cases(log: &Value) -> Vec<Case> {
    log["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["definition"] == "mairbench")
        .map(|r| Case {
            case: r["case"].as_str().unwrap().to_string(),
            id: r["extra"]["test_case_id"].as_str().unwrap().to_string(),
            result: r["result"].as_str().unwrap().to_string(),
        })
        .collect()
}

/// The result lava-run recorded for its own case `case` (definition `lava`).
fn lava_result<'a>(log: &'a Value, case: &str) -> &'a Value {
    log["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["definition"] == "lava" && r["case"] == case)
        .map_or(&Value::Null, |r| &r["result"])
}

#[test]
fn lava_run_records_one_case_per_verdict_and_the_status() {
    if std::env::var("MAIRBENCH_LAVA_RUN").as_deref() == Ok("0") {
        eprintln!("SKIPPED: MAIRBENCH_LAVA_RUN=0");
        return;
    }
    let Some(runner) = common::deps::lava_run() else {
        return;
    };
    // lava-run keeps its downloads under /var/lib/lava/dispatcher/tmp.
    let lava_dir = Path::new("/var/lib/lava/dispatcher");
    if std::fs::create_dir_all(lava_dir).is_err()
        || std::fs::metadata(lava_dir).is_ok_and(|m| m.permissions().readonly())
    {
        common::missing_dependency(
            "a writable /var/lib/lava/dispatcher for lava-run",
            "lava-run keeps its downloads there: run the test as root",
        );
        return;
    }
    live().assert_pass();
    for (bootargs, end, tag) in [
        ("mairbench.quick", "pass", "pass"),
        (
            "mairbench.quick mairbench.selftest=bad-attr",
            "fail",
            "bad-attr",
        ),
    ] {
        let (log, wall) = lava_run(&runner, bootargs, tag);
        eprintln!("lava-run {bootargs}: {:.1} s", wall.as_secs_f64());
        let cases = lava_cases(&log);
        // LAVA's cases are those of the records of the console it logged. (Its log may lack
        // the status line: the monitor stops as soon as the end pattern matches, before the
        // line is complete, and the logger writes whole lines only.)
        let console = log["console"].as_str().unwrap();
        let m = monitor_of(&template("lava/qemu.yaml"));
        assert_eq!(cases, expected(&m, console), "{bootargs}");
        let ids: Vec<String> = cases.iter().map(|c| c.id.clone()).collect();
        assert_eq!(ids, case_ids(), "{bootargs}");
        assert_eq!(cases.last().unwrap().result, end, "{bootargs}");
        // The monitor passed: it saw the end pattern (else "reached end of file" or a timeout).
        assert_eq!(lava_result(&log, "lava-test-monitor"), "pass", "{bootargs}");
        // The job itself completes whatever the firmware's status: that is the end case.
        assert_eq!(
            lava_result(&log, "job"),
            "pass",
            "{bootargs}: {}",
            log["results"]
        );
    }
}

/// The boot commands of `lava/uboot-board.yaml` (its `commands:` list), BOOTARGS filled in.
fn uboot_commands(bootargs: &str) -> Vec<String> {
    let text = render(
        "lava/uboot-board.yaml",
        &[
            ("DEVICE_TYPE", "qemu-virt-u-boot"),
            ("IMAGE_URL", "http://files.example/mairbench.bin"),
            ("DTB_URL", "http://files.example/virt.dtb"),
            ("BOOTARGS", bootargs),
        ],
    );
    let lines: Vec<&str> = text.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.trim() == "commands:")
        .expect("a commands: list");
    lines[at + 1..]
        .iter()
        .map_while(|l| l.strip_prefix("    - "))
        .map(scalar)
        .collect()
}

/// What LAVA's u-boot device type fails a boot on (`error-messages` of the u-boot constants
/// in LAVA 2023.01's `etc/dispatcher-config/device-types/base.jinja2`).
const UBOOT_ERRORS: [&str; 16] = [
    "Resetting CPU",
    "Must RESET board to recover",
    "TIMEOUT",
    "Retry count exceeded",
    "Retry time exceeded; starting again",
    "ERROR: The remote end did not respond in time.",
    "File not found",
    "Bad Linux ARM64 Image magic!",
    "Wrong Ramdisk Image Format",
    "Ramdisk image is corrupt or invalid",
    "ERROR: Failed to allocate",
    "TFTP error: trying to overwrite reserved memory",
    "Bad Linux RISCV Image magic!",
    "Wrong Image Format for boot",
    "ERROR: Did not find a cmdline Flattened Device Tree",
    "ERROR: RD image overlaps OS image",
];

/// Runs `cmd` (QEMU) until it exits, killed after `limit`; panics with its console and
/// stderr when it does not exit with 0 by itself.
fn run_limited(cmd: &mut Command, limit: Duration) -> String {
    let run = common::qemu(cmd, |_| false, limit);
    assert_eq!(run.exited, Some(0), "QEMU did not end well:\n{run}");
    run.console
}

/// The U-Boot job's commands, with the substitutions LAVA makes for a `type: image` kernel
/// and a dtb without ramdisk (`lava_dispatcher/actions/boot/__init__.py`,
/// BootloaderCommandOverlay: `{BOOTX}` is `booti {KERNEL_ADDR} - {DTB_ADDR}`), run by
/// Debian's U-Boot for QEMU `virt` as its bootcmd: `dhcp` and `tftp` from QEMU's user network
/// (its host, 10.0.2.2, serves a directory over TFTP as LAVA's dispatcher does), `booti` of
/// `mairbench.bin` with QEMU's own device tree, dumped, as the board's DTB.
#[test]
fn the_uboot_jobs_commands_boot_the_firmware_in_u_boot() {
    if !common::deps::need("uboot") {
        return;
    }
    live().assert_pass();
    let (kernel_addr, dtb_addr) = ("0x40400000", "0x40000000");
    let commands: Vec<String> = uboot_commands("mairbench.quick")
        .iter()
        .map(|c| {
            c.replace("{SERVER_IP}", "10.0.2.2")
                .replace("{KERNEL}", "mairbench.bin")
                .replace("{DTB}", "virt.dtb")
                .replace("{KERNEL_ADDR}", kernel_addr)
                .replace("{DTB_ADDR}", dtb_addr)
                .replace("{BOOTX}", &format!("booti {kernel_addr} - {dtb_addr}"))
        })
        .collect();
    assert_eq!(commands.len(), 7, "{commands:?}");
    assert!(commands.iter().all(|c| !c.contains('{')), "{commands:?}");
    assert_eq!(commands.last().unwrap(), "booti 0x40400000 - 0x40000000");

    let dir = common::dtb::tmp("lava-uboot");
    let tftp = dir.join("tftp");
    std::fs::create_dir_all(&tftp).unwrap();
    std::fs::copy(
        common::firmware().with_extension("bin"),
        tftp.join("mairbench.bin"),
    )
    .unwrap();
    let machine = ["-machine", "virt", "-cpu", "cortex-a72", "-m", "256M"];
    let dumped = format!("virt,dumpdtb={}", tftp.join("virt.dtb").display());
    run_limited(
        Command::new("qemu-system-aarch64")
            .args(["-machine", &dumped])
            .args(&machine[2..])
            .args(["-nographic", "-monitor", "none"]),
        Duration::from_secs(30),
    );
    // U-Boot's environment in its second flash bank, as qemu/run's U-Boot paths give it; a
    // failed booti powers off instead of waiting at the prompt.
    let env_txt = dir.join("env.txt");
    std::fs::write(
        &env_txt,
        format!("bootdelay=0\nbootcmd={}; poweroff\n", commands.join("; ")),
    )
    .unwrap();
    let env = dir.join("env.bin");
    let made = Command::new("mkenvimage")
        .args(["-s", "0x40000", "-o"])
        .arg(&env)
        .arg(&env_txt)
        .status()
        .expect("mkenvimage runs");
    assert!(made.success());
    std::fs::File::options()
        .write(true)
        .open(&env)
        .unwrap()
        .set_len(64 << 20)
        .unwrap();
    let console = run_limited(
        Command::new("qemu-system-aarch64")
            .args(machine)
            .args(["-nographic", "-monitor", "none"])
            .args(["-bios", "/usr/lib/u-boot/qemu_arm64/u-boot.bin"])
            .arg("-drive")
            .arg(format!(
                "if=pflash,unit=1,format=raw,file={}",
                env.display()
            ))
            .arg("-netdev")
            .arg(format!("user,id=n0,tftp={}", tftp.display()))
            .args(["-device", "virtio-net-pci,netdev=n0"]),
        Duration::from_secs(90),
    );
    let _ = std::fs::remove_dir_all(&dir);
    // LAVA's u-boot boot action waits for U-Boot's "Starting kernel" and fails on its errors.
    assert!(console.contains("Starting kernel"), "{console}");
    for error in UBOOT_ERRORS {
        assert!(!console.contains(error), "{error:?} in:\n{console}");
    }
    let records = common::records(&console);
    let start = records
        .iter()
        .find(|r| r["kind"] == "start")
        .expect("a start record");
    assert_eq!(start["bootargs"], "mairbench.quick", "{console}");
    assert_eq!(start["image_base"], kernel_addr, "{console}");
    assert_cases(&console, "pass", "the U-Boot job's commands in U-Boot");
}
