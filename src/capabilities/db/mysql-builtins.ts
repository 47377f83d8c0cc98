/**
 * The MariaDB/MySQL built-in functions a read may call: pure computations on their arguments, and
 * a few reads of the session or the clock. A name outside this list is not a built-in the engine
 * knows to be harmless: judge-mysql.ts then looks for a stored function of that name (judged by its
 * declaration and its body) and refuses anything else (a UDF from mysql.func is loaded C code).
 * Left out on purpose: LOAD_FILE (server files), SLEEP and BENCHMARK (hold the server), GET_LOCK
 * and RELEASE_*LOCK (locks outlive the transaction), NEXTVAL/SETVAL/LASTVAL (sequences),
 * MASTER_POS_WAIT and kin (replication), DES_ENCRYPT/DES_DECRYPT (the server's key file),
 * BINLOG_GTID_POS and WSREP_* (server internals).
 *
 * Built-in names win over stored functions and UDFs in MariaDB's grammar (function_call_generic:
 * native, then UDF, then a stored function of the current database), so an unqualified name here
 * always means the built-in; `db.name(...)` always means a stored function.
 */
const list = (s: string) => s.trim().split(/\s+/);

export const MYSQL_BUILTINS = new Set(
  list(`
    ascii bin bit_length char char_length character_length chr concat concat_ws elt export_set field find_in_set format
    from_base64 hex insert instr lcase left length lengthb locate lower lpad ltrim make_set mid natural_sort_key octet_length
    ord position quote regexp_instr regexp_replace regexp_substr repeat replace reverse right rpad rtrim sformat soundex space
    strcmp substr substring substring_index to_base64 to_char trim trim_oracle ucase unhex upper weight_string
    extractvalue updatexml format_bytes format_pico_time
    abs acos asin atan atan2 ceil ceiling conv cos cot crc32 crc32c degrees div exp floor ln log log10 log2 mod oct pi pow
    power radians rand round sign sin sqrt tan to_number truncate bit_count
    adddate addtime add_months convert_tz curdate current_date current_time current_timestamp curtime date datediff date_add
    date_format date_sub day dayname dayofmonth dayofweek dayofyear extract from_days from_unixtime get_format hour last_day
    localtime localtimestamp makedate maketime microsecond minute month monthname months_between now period_add period_diff
    quarter second sec_to_time str_to_date subdate subtime sysdate time timediff timestamp timestampadd timestampdiff
    time_format time_to_sec to_date to_days to_seconds trunc unix_timestamp utc_date utc_time utc_timestamp week weekday
    weekofyear year yearweek
    avg bit_and bit_or bit_xor count group_concat max min std stddev stddev_pop stddev_samp sum variance var_pop var_samp
    percentile_cont percentile_disc median
    row_number rank dense_rank percent_rank cume_dist ntile lag lead first_value last_value nth_value
    if ifnull nullif nvl nvl2 coalesce greatest least isnull interval decode_oracle cast convert
    md5 sha sha1 sha2 compress uncompress uncompressed_length aes_encrypt aes_decrypt encode decode password old_password
    encrypt random_bytes kdf
    inet_aton inet_ntoa inet6_aton inet6_ntoa is_ipv4 is_ipv4_compat is_ipv4_mapped is_ipv6 uuid uuid_short uuid_v4 uuid_v7
    sys_guid name_const default values value
    column_add column_check column_create column_delete column_exists column_get column_json column_list
    charset coercibility collation connection_id current_role current_user database found_rows row_count schema
    session_user system_user user version rownum decode_histogram is_free_lock is_used_lock
    area asbinary astext aswkb aswkt boundary buffer centroid contains convexhull crosses dimension disjoint endpoint envelope
    equals exteriorring geomcollfromtext geomcollfromwkb geometrycollection geometrycollectionfromtext
    geometrycollectionfromwkb geometryfromtext geometryfromwkb geometryn geometrytype geomfromtext geomfromwkb glength
    interiorringn intersects isclosed isempty isring issimple linefromtext linefromwkb linestring linestringfromtext
    linestringfromwkb mlinefromtext mlinefromwkb mpointfromtext mpointfromwkb mpolyfromtext mpolyfromwkb multilinestring
    multilinestringfromtext multilinestringfromwkb multipoint multipointfromtext multipointfromwkb multipolygon
    multipolygonfromtext multipolygonfromwkb numgeometries numinteriorrings numpoints overlaps point pointfromtext
    pointfromwkb pointn pointonsurface polyfromtext polyfromwkb polygon polygonfromtext polygonfromwkb srid startpoint
    touches within x y
    binary varbinary nchar varchar decimal dec numeric fixed int integer signed unsigned double float real datetime json bit
    tinyint smallint mediumint bigint inet4 inet6
  `),
);

/** Families of pure functions, by prefix: JSON, spatial (ST_, MBR), vectors. */
export const MYSQL_BUILTIN_PREFIXES = ['json_', 'st_', 'mbr', 'vec_'];

/** Built-ins that are harmless only without arguments: LAST_INSERT_ID(expr) sets the session's value. */
export const MYSQL_BUILTINS_WITHOUT_ARGUMENTS = new Set(['last_insert_id']);

/**
 * Words the grammar puts before a parenthesis that are not calls: IN (...), OVER (...), USING (...),
 * index hints, JSON_TABLE's COLUMNS (...), a CTE's column list (`name (a, b) AS (`, found apart).
 */
export const MYSQL_SYNTAX_BEFORE_PARENS = new Set(
  list(`
    in exists values as using on over and or not xor any all some select where by having then else when from join lateral
    union except intersect minus partition partitions index key columns row with returning limit offset case is like rlike
    regexp between distinct straight_join escape against match for window recursive path nested ordinality table into set
    sounds collate elseif return while until do div interval array keys if
  `),
);
