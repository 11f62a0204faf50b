//! The behavioural suite every storage backend must pass.
//!
//! Each function here drives an [`Api`] over a fresh store from the backend's factory, as the
//! local user ([`local`]), and pins one behaviour end to end: write outcomes, visibility, filters, history, search,
//! export/import. A backend's test binary instantiates all of them with
//! [`store_behaviour_suite!`](crate::store_behaviour_suite), so a backend cannot pass with a
//! subset. Time is a manual clock, so expiry is tested without sleeping. A behaviour that
//! belongs to one domain alone (a slot's limits, a verdict's history, a file's sync) is driven
//! through that domain's handle (`h.domains()`), the rest through the front door.

use std::io::Cursor;

use jiff::{Span, Timestamp, Zoned};

use crate::Error;
use crate::api::domains::Domains;
use crate::api::{Api, ApiParts, Caller};
use crate::clock::{Clock, ManualClock};
use crate::config::{Config, Limits};
use crate::error::RecordAt;
use crate::exchange::{ExportOptions, ImportReport};
use crate::id::IdRef;
use crate::memory::MemoryRecord;
use crate::memory::PruneRule;
use crate::memory::{Category, Memory, Source, WriteStatus};
use crate::memory::{ListQuery, MemoryFilter, SortKey, SortOrder, Visibility};
use crate::memory::{MemoryPatch, NewMemory};
use crate::scope::{ProjectName, Scope, ScopeFilter};
use crate::search::{FuzzyMode, SearchRequest};
use crate::store::Store;
use crate::tag::Tag;

mod access;
pub mod ann;
mod audit;
mod exchange;
mod files;
mod image;
mod memory;
mod relation;
mod search;
mod session;
mod slot;
mod vectors;
pub use access::*;
pub use ann::{
    AnnFactory, AnnFixture, AnnStores, a_selective_filter_gets_every_match_it_allows,
    forgotten_purged_and_changed_memories_never_come_back_through_the_index,
    the_index_is_built_once_large_enough_and_agrees_with_the_exact_scan,
};
pub use audit::*;
pub use exchange::*;
pub use files::*;
pub use image::*;
pub use memory::*;
pub use relation::*;
pub use search::*;
pub use session::*;
pub use slot::*;
pub use vectors::*;

/// Makes a fresh, empty store.
pub type StoreFactory = fn() -> Box<dyn Store>;

/// Instantiates every behaviour of the suite as a `#[test]` for a backend. A backend that needs
/// what a fresh clone lacks (a server) passes `ignore = "needs …"`: every test is then marked
/// `#[ignore]` with that reason, and runs when asked for (`--include-ignored`).
#[macro_export]
macro_rules! store_behaviour_suite {
    ($factory:expr) => {
        $crate::store_behaviour_suite!(@names $factory, []);
    };
    ($factory:expr, ignore = $reason:literal) => {
        $crate::store_behaviour_suite!(@names $factory, [ignore = $reason]);
    };
    (@names $factory:expr, [$($mode:tt)*]) => {
        $crate::store_behaviour_suite!(@tests $factory, [$($mode)*];
            store_get_list_search_round_trip,
            duplicate_content_in_a_scope_returns_the_existing_memory_and_writes_nothing,
            topic_key_revises_in_place_and_keeps_the_previous_revision,
            update_keeps_history_and_an_unchanged_update_writes_nothing,
            expired_memories_are_invisible_to_every_read,
            prune_dry_run_deletes_nothing_and_prune_deletes_exactly_the_expired,
            prune_created_before_deletes_older_memories_in_every_state,
            forget_hides_and_purge_removes_for_good,
            tag_filters_match_all_or_any,
            date_filters_bound_creation_time,
            scope_filters_separate_projects_and_include_global,
            filters_compose_with_search,
            search_ranks_memories_holding_more_terms_first_and_pages,
            the_index_follows_updates_and_purges,
            short_handles_resolve_and_ambiguity_is_an_error,
            invalid_writes_name_the_field_and_write_nothing,
            secrets_are_redacted_on_store_update_and_import,
            export_then_import_is_lossless_and_reimport_is_a_no_op,
            import_of_a_newer_record_updates_and_merges_history,
            a_bad_import_line_rolls_back_the_whole_import,
            memory_records_written_together_end_as_written_one_by_one,
            everything_a_store_holds_round_trips_byte_for_byte,
            a_whole_store_moves_into_another_and_a_second_run_changes_nothing,
            an_export_without_sessions_leaves_them_out,
            plain_records_are_stored_like_new_memories,
            a_bad_plain_record_anywhere_imports_nothing,
            a_header_guards_against_cut_off_and_newer_files,
            an_imported_relation_waits_for_its_memories_and_needs_them_in_its_scope,
            an_imported_slot_replaces_an_untouched_default_but_not_a_newer_edit,
            an_observation_needs_its_session_first,
            tags_and_stats_count_visible_memories,
            a_listing_by_content_is_alphabetical_without_regard_to_ascii_case,
            query_operators_phrases_and_prefixes_match_exactly,
            implicit_queries_rank_memories_by_how_many_words_they_hold,
            strict_implicit_queries_return_only_memories_holding_every_word,
            fuzzy_search_finds_misspelled_words_and_nothing_unrelated,
            fuzzy_threshold_is_respected,
            fuzzy_never_returns_expired_or_forgotten_memories,
            fuzzy_runs_by_itself_only_for_words_no_memory_holds,
            a_memory_found_only_by_a_near_spelling_ranks_below_every_exact_match,
            a_search_from_a_project_ranks_its_memories_first_among_comparable_hits,
            a_keyword_hit_records_the_share_of_a_plain_query_it_holds,
            filters_compose_with_fuzzy_search,
            lexical_ranking_over_a_window_considers_only_the_newest_matches,
            a_rarer_word_outweighs_a_common_one_in_a_large_store,
            events_record_a_session_its_observations_and_a_summary,
            summaries_rank_below_written_memories_and_expire,
            refused_calls_are_failures_recorded_once,
            a_session_left_open_is_closed_by_the_next_start_after_its_idle_time,
            a_replayed_event_is_recorded_once,
            observations_are_redacted_truncated_searchable_and_expire,
            remember_lines_become_memories_when_a_turn_stops,
            an_agent_summary_is_kept_over_a_derived_one,
            context_fits_its_budget_and_prefers_relevant_memories,
            project_listings_page_through_both_scopes_in_order,
            default_slots_are_seeded_by_scope_and_seeding_never_overwrites,
            slot_operations_round_trip_and_refuse_bad_labels_and_duplicates,
            slot_limits_refuse_oversize_writes_and_write_nothing,
            read_only_slots_refuse_changes_until_unlocked,
            project_slots_are_separate_and_shadow_global_ones,
            parallel_appends_to_one_slot_lose_nothing,
            reflection_at_session_end_fills_pending_items_patterns_and_context,
            reflection_can_be_turned_off_and_skips_deleted_or_read_only_slots,
            pinned_slots_lead_the_context_within_its_budget,
            a_write_reports_candidates_and_records_pending_judgments,
            only_memories_that_disagree_become_candidates,
            detection_honours_its_settings,
            verdicts_settle_judgments_keep_history_and_refuse_bad_input,
            compare_is_idempotent_per_actor_and_refuses_cross_project_pairs,
            search_results_carry_annotations_and_superseded_memories_rank_below_successors,
            purging_a_memory_deletes_its_relations_and_forgetting_keeps_them,
            scan_finds_pairs_never_related_and_records_them_only_when_applied,
            stats_count_relations_by_status_and_kind,
            facts_extracted_from_agents_record_candidates_by_words,
            context_shows_a_successor_instead_of_the_memory_it_replaced,
            imported_plain_records_record_candidates_by_words,
            writes_land_in_the_day_file_and_a_change_rewrites_only_its_unit,
            hand_edits_deletions_and_new_units_reach_the_store,
            a_teammates_unit_is_imported_with_its_id_and_a_purged_memory_leaves_the_files,
            a_cut_unit_forgets_its_memory_until_it_comes_back_and_a_dry_run_changes_nothing,
            a_unit_of_a_memory_forgotten_in_cairn_is_left_where_git_put_it,
            forget_undo_brings_a_memory_and_its_unit_back,
            a_file_that_cannot_be_read_whole_never_forgets_a_memory,
            text_outside_units_is_indexed_read_only_and_follows_its_file,
            memory_add_answers_as_the_openclaw_contract_states,
            followed_files_are_read_only_memories_in_line_with_their_files,
            the_index_rebuilds_from_the_files_alone,
            a_refresh_reads_the_files_only_when_someone_else_changed_them,
            a_watcher_leaves_a_file_being_written_until_it_settles,
            a_write_whose_file_fails_still_stores_and_export_writes_it_later,
            session_summaries_reach_the_files_only_when_configured,
            a_session_in_which_nothing_happened_leaves_no_summary,
            a_short_session_that_stored_a_memory_is_summarised,
            a_session_recorded_long_after_it_ran_is_judged_by_all_it_did,
            a_prompt_and_learnings_handed_over_by_a_tool_land_in_the_callers_project,
            an_image_is_stored_once_by_content_and_shown_by_every_memory_that_uses_it,
            the_same_words_with_another_picture_is_a_new_memory,
            a_revision_by_topic_key_keeps_its_pictures_and_gains_the_new_one,
            purging_the_last_memory_that_shows_an_image_deletes_its_record_and_file,
            an_image_past_the_quota_is_refused_and_unreferenced_images_go_first,
            bad_images_are_refused_before_anything_is_written,
            an_images_text_makes_every_memory_that_shows_it_findable,
            an_image_is_found_by_its_look_and_its_copies_fold_into_it,
            images_that_look_alike_are_found_by_their_look_vectors,
            images_are_found_by_what_words_describe_with_a_clip_model,
            one_image_is_looked_at_on_demand_and_only_what_it_lacks_is_made,
            tokens_are_issued_listed_authenticated_and_revoked,
            a_token_reads_only_its_project_and_the_global_scope,
            a_write_token_writes_only_its_own_project,
            sentence_vectors_live_and_die_with_their_memorys_vector,
            every_change_is_logged_with_who_made_it_and_reads_are_not,
            only_the_operator_reads_the_log_and_bad_filters_name_their_field,
            audit_entries_past_their_retention_go_and_zero_keeps_none,
        );
    };
    (@tests $factory:expr, []; $($name:ident),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                $crate::testing::$name($factory);
            }
        )*
    };
    (@tests $factory:expr, [ignore = $reason:literal]; $($name:ident),* $(,)?) => {
        $(
            #[test]
            #[ignore = $reason]
            fn $name() {
                $crate::testing::$name($factory);
            }
        )*
    };
}

/// The front door over a fresh store, with a clock the test moves.
pub struct Harness {
    pub api: Api,
    pub clock: ManualClock,
}

/// Fails a test for want of `what`, saying how to provide it. A test that needs something a
/// fresh clone lacks (a model, a server, a browser, an agent CLI, the benchmark data) is marked
/// `#[ignore = "needs …"]`: a plain `cargo test` reports it as ignored, with its reason, rather
/// than as a pass that tested nothing; asked for (`--include-ignored`, as `.ci/run` does with
/// everything provided), it runs, and what is missing fails it here.
pub fn missing(what: &str, how: &str) -> ! {
    panic!("this test needs {what}: {how}")
}

/// The value of the environment variable `var`, which names something a test needs (`what`),
/// or a failure saying so. The one reader of the `CAIRN_TEST_*` variables and their kin.
pub fn provided(var: &str, what: &str) -> String {
    match std::env::var(var) {
        Ok(value) if !value.is_empty() => value,
        _ => missing(
            what,
            &format!("set {var} (.ci/run shows how it provides it)"),
        ),
    }
}

/// The default settings, embedding `batch` memories at a time.
pub fn embedding_config(batch: usize) -> Config {
    let mut config = Config::default();
    config.embedding.batch_size = batch;
    config
}

/// The caller of a store token for `project_name` with `right`, issued on `api`.
pub(crate) fn token_caller(
    api: &Api,
    project_name: &str,
    right: crate::access::Right,
) -> crate::api::Caller {
    let issued = api
        .issue_token(
            &local(),
            crate::access::NewToken {
                project: ProjectName::new(project_name).expect("a valid project"),
                right,
                name: None,
            },
        )
        .unwrap();
    let grant = api.authenticate(&issued.token).unwrap().unwrap();
    local().granted(crate::access::Access::Token(grant))
}

/// The fixed start of every test's clock.
pub fn start_time() -> Zoned {
    "2026-03-11T14:05:00+00:00[UTC]"
        .parse()
        .expect("valid time")
}

impl Harness {
    pub fn new(factory: StoreFactory) -> Self {
        Self::with_limits(factory, Limits::default())
    }

    pub fn with_limits(factory: StoreFactory, limits: Limits) -> Self {
        Self::with_config(
            factory,
            &Config {
                limits,
                ..Config::default()
            },
        )
    }

    /// A harness whose front door runs with these settings.
    pub fn with_config(factory: StoreFactory, config: &Config) -> Self {
        let (clock, handle) = Clock::manual(start_time());
        let parts = ApiParts {
            clock,
            ..ApiParts::new(factory())
        };
        Harness {
            api: Api::open(parts, config),
            clock: handle,
        }
    }

    /// A harness whose front door embeds with `embedder` (semantic search, the embedding queue).
    pub fn with_embedder(
        factory: StoreFactory,
        embedder: std::sync::Arc<dyn crate::embedding::Embedder>,
    ) -> Self {
        let (clock, handle) = Clock::manual(start_time());
        let parts = ApiParts {
            embedder: Some(embedder),
            clock,
            ..ApiParts::new(factory())
        };
        Harness {
            api: Api::open(parts, &embedding_config(16)),
            clock: handle,
        }
    }

    /// The domain handles below the front door, for a behaviour one domain alone decides.
    pub(crate) fn domains(&self) -> &Domains {
        &self.api.domains
    }

    pub fn now(&self) -> Timestamp {
        self.api.now().timestamp()
    }

    /// Stores `content` in the `acme` project with the given tags; returns the memory.
    pub fn add(&self, content: &str, tags: &[&str]) -> Memory {
        let mut new = NewMemory::new(content, project("acme"), Source::Cli);
        new.tags = tags.iter().map(|t| t.to_string()).collect();
        let outcome = self.api.write(&local(), new, None).expect("store");
        assert_eq!(outcome.status, WriteStatus::Created, "{content}");
        outcome.memory
    }

    pub fn count_all(&self) -> u64 {
        let filter = MemoryFilter {
            visibility: Visibility {
                expired: true,
                forgotten: true,
            },
            ..Default::default()
        };
        self.domains().memories().count(&filter).expect("count")
    }

    pub fn search(&self, query: &str, filter: MemoryFilter) -> Vec<Memory> {
        let request = SearchRequest {
            fuzzy: FuzzyMode::Never,
            ..SearchRequest::new(query, filter, 50)
        };
        self.api
            .search_request(&local(), &request)
            .expect("search")
            .hits
            .into_iter()
            .map(|hit| hit.memory)
            .collect()
    }

    pub fn list(&self, filter: MemoryFilter) -> Vec<Memory> {
        let query = ListQuery {
            filter,
            sort: SortKey::Created,
            order: SortOrder::Asc,
            limit: 1000,
            offset: 0,
        };
        self.domains().memories().list(&query).expect("list")
    }

    /// Everything the store holds, sessions included, as export writes it.
    pub fn export(&self) -> String {
        export_all(&self.api)
    }

    /// Imports with plain records going to the global scope.
    pub fn import(&self, jsonl: &str) -> crate::Result<ImportReport> {
        self.api
            .import(&local(), &mut Cursor::new(jsonl.as_bytes()), &mut |_| {})
    }
}

/// Everything `api`'s store holds, sessions included, as export writes it.
pub fn export_all(api: &Api) -> String {
    let mut out = Vec::new();
    api.export(&local(), ExportOptions { sessions: true }, &mut |line| {
        out.extend_from_slice(line);
        Ok(())
    })
    .expect("export");
    String::from_utf8(out).expect("an export is UTF-8")
}

/// The local user (the command line's): full access, no default project.
pub fn local() -> Caller {
    Caller::local(Source::Cli)
}

pub fn project(name: &str) -> Scope {
    Scope::Project(ProjectName::new(name).expect("valid project"))
}

/// A unit vector of `dimensions` drawn from `seed` (splitmix64, roughly Gaussian components):
/// the same for every store's vector-index tests, so queries can be aimed at stored vectors.
pub fn seeded_unit_vector(seed: u64, dimensions: usize) -> Vec<f32> {
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(1);
    let mut next = || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    };
    let v: Vec<f32> = (0..dimensions)
        .map(|_| ((0..4).map(|_| next()).sum::<f64>() - 2.0) as f32)
        .collect();
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    v.into_iter().map(|x| x / norm).collect()
}

fn tags(names: &[&str]) -> Vec<Tag> {
    names
        .iter()
        .map(|n| Tag::new(n).expect("valid tag"))
        .collect()
}

fn ids(memories: &[Memory]) -> Vec<String> {
    memories.iter().map(|m| m.id.to_string()).collect()
}

/// The ids of the memories a test expects, in order.
fn expected_ids(memories: &[&Memory]) -> Vec<String> {
    memories.iter().map(|m| m.id.to_string()).collect()
}

fn by_ref(memory: &Memory) -> IdRef {
    IdRef::Full(memory.id)
}

pub(crate) fn store_expiring(h: &Harness, content: &str, in_minutes: i64) -> Memory {
    let mut new = NewMemory::new(content, project("acme"), Source::Cli);
    new.expires_at = Some(h.now() + Span::new().minutes(in_minutes));
    h.api.write(&local(), new, None).unwrap().memory
}
