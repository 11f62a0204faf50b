-- cairn schema v4 on PostgreSQL: how many memories hold each part of a query, in one call per
-- statement (the store's `text::bm25_score`).
--
-- The rule is migration 3's (`cairn_memories_holding`): a single word ANALYZE lists among the
-- store's most common words, held by at least `cap` memories by its sampled share, is held by
-- that share; any other part is counted up to `cap`, and one that reaches it is held by the
-- planner's estimate (never fewer than `cap`). What changes is the cost of reading the
-- statistics, which was most of the work:
-- - `pg_stats` is a view over four catalogs, and its common words come as an untyped array
--   that must be printed and parsed back. Migration 3 read them once per part (a statement of
--   one word no memory holds took 2.7 ms at 100,000 memories, where counting it takes 0.5).
--   Here they are read once for all the parts of a statement, and not at all in a store of
--   fewer than `cap` memories or when no part is a single word.
-- - Migration 3 found the view's row by joining it to `pg_class` on the table's name, which
--   PostgreSQL plans as a scan of every table in the database: 23 ms a lookup in one of 455
--   schemas (54,000 tables), 40 to 150 ms a statement of one to three words. Here the table
--   and column are named as constants and the catalogs' indexes answer (0.7 ms).
--
-- Migration 3's function stays for servers of the previous version still running during an
-- upgrade; this version does not call it.
CREATE FUNCTION cairn_memories_holding_parts(parts tsquery[], cap bigint) RETURNS float8[]
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    stored float8;
    common_words text[];
    common_shares float4[];
    part tsquery;
    sampled float8;
    counted bigint;
    plan json;
    held float8[] := '{}';
BEGIN
    SELECT c.reltuples INTO stored FROM pg_class c WHERE c.oid = 'memories'::regclass;
    IF stored >= cap AND EXISTS (SELECT 1 FROM unnest(parts) p WHERE numnode(p) = 1) THEN
        SELECT s.most_common_elems::text::text[], s.most_common_elem_freqs
            INTO common_words, common_shares
        FROM pg_stats s
        WHERE s.tablename = 'memories' AND s.attname = 'fts'
          AND s.schemaname = (SELECT n.nspname FROM pg_class c
                              JOIN pg_namespace n ON n.oid = c.relnamespace
                              WHERE c.oid = 'memories'::regclass);
    END IF;
    FOREACH part IN ARRAY parts LOOP
        sampled := NULL;
        IF numnode(part) = 1 THEN
            sampled := common_shares[array_position(common_words, btrim(part::text, ''''))]
                       * stored;
        END IF;
        IF sampled >= cap THEN
            held := held || sampled;
            CONTINUE;
        END IF;
        -- Planned for the part at hand (EXECUTE plans anew, with its value), without the cap,
        -- and read only up to it: planned with it, a word the statistics think merely uncommon
        -- gets a scan of the whole table that hopes to meet `cap` holders early.
        EXECUTE 'WITH held AS MATERIALIZED (SELECT 1 FROM memories WHERE fts @@ $1) '
                'SELECT count(*) FROM (SELECT 1 FROM held LIMIT $2) capped'
            INTO counted USING part, cap;
        IF counted < cap THEN
            held := held || counted::float8;
            CONTINUE;
        END IF;
        EXECUTE 'EXPLAIN (FORMAT JSON) SELECT 1 FROM memories WHERE fts @@ $1' INTO plan USING part;
        held := held || greatest(counted, (plan -> 0 -> 'Plan' ->> 'Plan Rows')::float8);
    END LOOP;
    RETURN held;
END
$$;
