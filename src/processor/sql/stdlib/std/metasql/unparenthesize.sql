-- std.metasql.unparenthesize: metasql_unparenthesize_exprlist!((a, b, c)) gives a, b, c, for
-- splicing a parenthesised list where SQL wants a bare one (GROUP BY, PARTITION BY). It is
-- built in (written in C); this module names it so that INCLUDE works as in Perfetto.
SELECT 1;
