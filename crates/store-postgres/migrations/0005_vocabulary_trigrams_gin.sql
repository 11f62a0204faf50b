-- cairn schema v5 on PostgreSQL: the vocabulary's trigram index becomes GIN.
--
-- Near-spellings were the nearest words by trigram distance through a GiST index (`<->`):
-- 32 ms a word at 100,000 memories (73,000 words), most of a typo search. GIN answers "the
-- words sharing at least a fifth of their letter triples with this one" (`%`, with
-- `pg_trgm.similarity_threshold` set to 0.2 on every connection) in about 9 ms, and the
-- candidates are the same (`text::similar_words` says why a fifth). GIN is also cheaper to
-- insert into than GiST, which an import of new words pays for.
--
-- A server of the previous version still running during an upgrade keeps working: its `<->`
-- query needs no index, it only scans.
DROP INDEX vocabulary_trigrams;
CREATE INDEX vocabulary_trigrams ON vocabulary USING gin (word gin_trgm_ops);
