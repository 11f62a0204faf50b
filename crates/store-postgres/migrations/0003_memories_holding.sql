-- cairn schema v3 on PostgreSQL: how many memories hold a part of a query (a word, a phrase or a
-- prefix), for the rarity that ranks them (the store's `text::bm25_score`).
--
-- A part held by fewer than `cap` memories is counted exactly. A common one is not: counting the
-- holders of a word found in a quarter of the store reads a quarter of the store (560 ms at
-- 1,000,000 memories), and its rarity changes little between 270,000 and 280,000 holders. Its
-- count comes from the statistics ANALYZE sampled, as the planner's own estimates do:
-- 1. a single word ANALYZE lists among the store's most common words (`most_common_elems`, about
--    a thousand) is held by its sampled share of the memories, read without touching them;
-- 2. any other part is counted up to `cap`; one that reaches it is held by the planner's
--    estimate (never fewer than `cap`).
--
-- The statements of step 2 are planned for the part at hand (EXECUTE plans them anew, with the
-- part's value): a cached plan would be blind to it. The count is planned without its cap and
-- read only up to it: planned with it, a word the statistics think merely uncommon gets a scan
-- of the whole table that hopes to meet `cap` holders early.
CREATE FUNCTION cairn_memories_holding(part tsquery, cap bigint) RETURNS float8
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    sampled float8;
    counted bigint;
    plan json;
BEGIN
    IF numnode(part) = 1 THEN
        SELECT s.most_common_elem_freqs[array_position(s.most_common_elems::text::text[],
                                                       btrim(part::text, ''''))]
               * c.reltuples INTO sampled
        FROM pg_class c
        JOIN pg_namespace n ON n.oid = c.relnamespace
        JOIN pg_stats s ON s.schemaname = n.nspname AND s.tablename = c.relname
                       AND s.attname = 'fts'
        WHERE c.oid = 'memories'::regclass;
        IF sampled >= cap THEN
            RETURN sampled;
        END IF;
    END IF;
    EXECUTE 'WITH held AS MATERIALIZED (SELECT 1 FROM memories WHERE fts @@ $1) '
            'SELECT count(*) FROM (SELECT 1 FROM held LIMIT $2) capped'
        INTO counted USING part, cap;
    IF counted < cap THEN
        RETURN counted;
    END IF;
    EXECUTE 'EXPLAIN (FORMAT JSON) SELECT 1 FROM memories WHERE fts @@ $1' INTO plan USING part;
    RETURN greatest(counted, (plan -> 0 -> 'Plan' ->> 'Plan Rows')::float8);
END
$$;
