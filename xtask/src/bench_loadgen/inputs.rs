//! What bench-loadgen's runs read: `--template`'s body and data, `--flow`'s mix file, and
//! wrk's script, each made from the case's own body in the temporary folder.

use std::path::PathBuf;

use anyhow::Context as _;
use loadgen::mix::{Flow, FlowStep, Mix, Part};
use loadgen::options::{Save, SaveFrom};
use suite::manifest::Case;

/// `--flow`'s saved value: the answer's twentieth string, so that the save reads nearly the
/// whole of EchoStruct-20's answer.
const SAVED: &str = "/Envelope/Body/EchoStructResponse/EchoStructResult/l[20]/s";

/// A mix file of a flow: a login (the case's body, `--save v=SAVED`) then nine calls (the
/// case's body with its first string `{{v}}`), and the call's body beside it.
pub(super) fn flow_file(case: &Case) -> anyhow::Result<PathBuf> {
    let body = std::fs::read_to_string(&case.body_file)?;
    let open = body.find("<s>").context("a body without <s>")? + "<s>".len();
    let close = open + body[open..].find("</s>").context("an <s> not closed")?;
    let call = format!("{}{{{{v}}}}{}", &body[..open], &body[close..]);
    let dir = std::env::temp_dir();
    let call_file = dir.join(format!("xtask-flow-call-{}.xml", std::process::id()));
    std::fs::write(&call_file, call)?;
    // Written by loadgen's own mix, which quotes the paths as its reader wants them.
    let part = |name: &str, body: PathBuf| Part {
        name: name.to_owned(),
        ..Part::weighted_body(http::Method::POST, body, 1)
    };
    let mut login = part("login", case.body_file.clone());
    login.saves.push(Save {
        name: "v".to_owned(),
        from: SaveFrom::Path(SAVED.to_owned()),
    });
    let steps = vec![
        FlowStep { part: 0, times: 1 },
        FlowStep { part: 1, times: 9 },
    ];
    let mix = Mix::flowing(vec![login, part("call", call_file)], Flow { steps }, 1)?.to_file();
    let mix_file = dir.join(format!("xtask-flow-{}.mix", std::process::id()));
    std::fs::write(&mix_file, mix)?;
    Ok(mix_file)
}

/// EchoStruct-20's body with each item's int and string as `{{id}}` and `{{name}}`, and a CSV
/// of `rows` of them (`id` from 0, `name` "wstest N", near the fixed body's own lengths), in
/// the temporary folder.
pub(super) fn template_files(case: &Case, rows: u32) -> anyhow::Result<(PathBuf, PathBuf)> {
    let body = std::fs::read_to_string(&case.body_file)?;
    let mut template = String::with_capacity(body.len());
    let mut rest = body.as_str();
    while let Some(open) = rest.find("<i>") {
        let item = &rest[open..];
        let end = item.find("</s>").context("an item without <s>")?;
        let (i_end, s_start) = (
            item.find("</i>").context("<i>")?,
            item.find("<s>").context("<s>")?,
        );
        template.push_str(&rest[..open]);
        template.push_str("<i>{{id}}");
        template.push_str(&item[i_end..s_start]);
        template.push_str("<s>{{name}}");
        rest = &item[end..];
    }
    template.push_str(rest);
    let mut data = String::from("id,name\n");
    for row in 0..rows {
        data.push_str(&format!("{row},wstest {row}\n"));
    }
    let dir = std::env::temp_dir();
    let (body_file, data_file) = (
        dir.join(format!("xtask-template-{}-{rows}.xml", std::process::id())),
        dir.join(format!("xtask-template-{}-{rows}.csv", std::process::id())),
    );
    std::fs::write(&body_file, template)?;
    std::fs::write(&data_file, data)?;
    Ok((body_file, data_file))
}

/// A wrk script that posts the case's body with its headers.
pub(super) fn wrk_script(case: &Case) -> anyhow::Result<String> {
    let quote = |text: &str| format!("{text:?}");
    let mut script = format!(
        "local f = assert(io.open({}, \"rb\"))\nwrk.method = \"POST\"\nwrk.body = f:read(\"*a\")\nf:close()\nwrk.headers[\"Content-Type\"] = {}\n",
        quote(&case.body_file.display().to_string()),
        quote(&case.content_type)
    );
    for header in &case.headers {
        let (name, value) = header.split_once(':').context("a header without a colon")?;
        script.push_str(&format!(
            "wrk.headers[{}] = {}\n",
            quote(name.trim()),
            quote(value.trim())
        ));
    }
    Ok(script)
}
