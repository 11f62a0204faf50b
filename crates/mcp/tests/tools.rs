//! The tool list a client sees, pinned: names, descriptions, annotations and exact input
//! schemas. A change here changes what every connected model reads, so it must be deliberate
//! (review the snapshot diff, then accept it with `cargo insta review` or `INSTA_UPDATE=always`).

use cairn_core::config::ToolProfile;

#[test]
fn the_tools_list_is_pinned() {
    let tools = serde_json::to_value(cairn_mcp::tools::tools(ToolProfile::All)).unwrap();
    insta::assert_json_snapshot!("tools_list", tools);
}

#[test]
fn the_engram_profile_offers_engrams_names_and_only_them() {
    use cairn_mcp::tools::{offers, tools};
    let names: Vec<String> = tools(ToolProfile::Engram)
        .into_iter()
        .map(|tool| tool.name.into_owned())
        .collect();
    assert_eq!(
        names,
        [
            "mem_save",
            "mem_search",
            "mem_context",
            "mem_session_summary",
            "mem_judge",
            "mem_compare",
            "mem_save_prompt",
            "mem_capture_passive"
        ]
    );
    assert!(offers(ToolProfile::Engram, "mem_save"));
    assert!(!offers(ToolProfile::Engram, "memory_store"));
    for profile in [ToolProfile::Core, ToolProfile::All] {
        assert!(!offers(profile, "mem_save"));
    }
    let schema = serde_json::to_value(&tools(ToolProfile::Engram)[5].input_schema).unwrap();
    assert_eq!(
        schema["required"],
        serde_json::json!([
            "memory_id_a",
            "memory_id_b",
            "relation",
            "confidence",
            "reasoning"
        ])
    );
}

#[test]
fn the_core_profile_is_the_small_everyday_set() {
    let names: Vec<String> = cairn_mcp::tools::tools(ToolProfile::Core)
        .into_iter()
        .map(|tool| tool.name.into_owned())
        .collect();
    assert_eq!(
        names,
        [
            "memory_store",
            "memory_search",
            "memory_get",
            "memory_update",
            "memory_forget",
            "memory_context",
            "memory_session_summary",
            "memory_judge",
            "memory_vision_search",
            "memory_slot_get",
            "memory_slot_append",
            "memory_slot_replace"
        ]
    );
    for tool in cairn_mcp::tools::tools(ToolProfile::All) {
        let description = tool.description.unwrap_or_default();
        assert!(
            description.contains("Example: {"),
            "{} has no example",
            tool.name
        );
        assert!(
            description.contains("Use it"),
            "{} should say when to use it",
            tool.name
        );
        if tool.name != "memory_tags" && tool.name != "memory_stats" {
            assert!(
                description.contains("Not for") || description.contains("Do not use it"),
                "{} should say when not to use it",
                tool.name
            );
        }
    }
}
