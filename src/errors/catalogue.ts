/**
 * The one catalogue of error codes: each code's HTTP status, a one-line meaning and the
 * templates of its messages. A code is never reused for something else; docs/errors.md lists
 * the same codes and a test keeps the two in step. Throw sites name a template and pass its
 * values (`dbError` in db-error.ts); they never compose a sentence of their own.
 */

/** One code's entry. */
export interface CatalogueEntry {
  status: number;
  meaning: string;
  /**
   * Set for a code whose message carries internal text (a storage engine's words, a bug's
   * detail): a client reads this fixed message and the request id instead, and the node's
   * log keeps the error's own message under that request id.
   */
  publicMessage?: string;
  /**
   * The messages this code is raised with, by name: each a sentence for the user with named
   * placeholders (`{collection}`: letters, digits and `_`), filled by `dbError` from the
   * values a throw site passes. Literal braces never appear in a template.
   */
  messages?: Readonly<Record<string, string>>;
}

export const ERROR_CATALOGUE = {
  ERR_COLLECTION_NAME_INVALID: {
    status: 400,
    meaning: 'A collection name breaks the naming rules.',
    messages: {
      empty: 'a collection name must be a non-empty string',
      tooLong: "collection name '{name}…' is {nameLength} characters; the limit is {limit}",
      badCharacter:
        "collection name '{name}' contains '{bad}': use letters, digits, '.', '_' and '-' only",
      reserved:
        "collection name '{name}' is reserved: as a key of a JOIN's rows it would set their prototype",
    },
  },
  ERR_COLLECTION_NOT_FOUND: {
    status: 404,
    meaning: 'The collection does not exist.',
    messages: {
      unknown: "unknown collection '{name}' (known: {shown}{more}){hint}",
      noneYet: "unknown collection '{name}' (there are no collections yet){hint}",
    },
  },
  ERR_COLLECTION_LIMIT: {
    status: 400,
    meaning: 'Creating the collection would pass the limit.',
    messages: {
      tooMany: "cannot create collection '{name}': a data file holds at most {limit} collections",
    },
  },
  ERR_DOCUMENT_INVALID: {
    status: 400,
    meaning: 'A document is not a JSON object of JSON values.',
    messages: {
      loneSurrogate:
        "field '{field}' holds a string with a lone UTF-16 surrogate (not valid Unicode)",
      notJsonValue: "field '{field}' holds {what}",
      tooDeep: "field '{field}' nests deeper than {limit} levels",
      protoField: "field name '{prefix}__proto__' is not allowed",
      loneSurrogateInName: "field name '{prefix}{key}' holds a lone UTF-16 surrogate",
      notObject: 'a document must be a JSON object, not {what}',
    },
  },
  ERR_DOCUMENT_TOO_LARGE: {
    status: 413,
    meaning: 'A document is larger than the limit.',
    messages: {
      tooLarge: 'the document takes {bytes} bytes stored; the limit is {limit}',
    },
  },
  ERR_DOCUMENT_ID_INVALID: {
    status: 400,
    meaning: 'An `_id` is not a valid UUID.',
    messages: {
      notId: '{id} is not a document id',
      notUuid: '_id {id} is not a UUID; leave _id out to get a generated one',
      notUuidId: '{id} is not a document id (a UUID)',
      idChanged: "the new document's _id {given} differs from {id}; _id cannot change",
      bodyIdDiffers: "the body's _id {given} differs from {id}; _id cannot change",
    },
  },
  ERR_DOCUMENT_ID_EXISTS: {
    status: 409,
    meaning: 'An insert supplied an `_id` that is already in the collection.',
    messages: {
      exists: '_id {id} already exists in {collection}; use replace to change it',
    },
  },
  ERR_DOCUMENT_NOT_FOUND: {
    status: 404,
    meaning: 'No document has that `_id`.',
    messages: {
      byId: 'no document with _id {id} in {collection}',
      byKey: 'no document in {collection} has {field} = {value}',
    },
  },
  ERR_DOCUMENT_CHANGED: {
    status: 412,
    meaning: 'A conditional write named a version of the document that is no longer current.',
    messages: {
      changed:
        'the document with _id {id} in {collection} changed since tag {ifMatch} was read; its tag is now {tag}',
    },
  },
  ERR_PATH_INVALID: {
    status: 400,
    meaning: 'A JSON path cannot be parsed or is not allowed.',
    messages: {
      invalid: "invalid JSON path '{path}': {why}",
      notString: 'a JSON path must be a non-empty string',
    },
  },
  ERR_INDEX_INVALID: {
    status: 400,
    meaning: 'An index definition is not valid.',
    messages: {
      notObject: 'an index spec must be an object',
      noPath: 'an index needs at least one path',
      tooManyPaths: 'an index has at most {limit} paths; got {count}',
      repeatedPath: 'an index lists the same path twice',
      onId: "'_id' is the primary key and needs no index",
      manyEach: 'a composite index may hold at most one path with [*]',
      uniqueNotBoolean: "'unique' must be true or false",
      nameLength: 'an index name must be 1 to {limit} characters',
      nameCharacter: "index name '{name}' may hold letters, digits, '.', '_' and '-' only",
    },
  },
  ERR_INDEX_EXISTS: {
    status: 409,
    meaning: 'An index with that name already exists on the collection.',
    messages: {
      exists: "collection {collection} already has an index named '{index}'",
      differsFromFile:
        "the collection already has an index {name} on {paths}{unique}; the file's is on {filePaths}{fileUnique}",
    },
  },
  ERR_INDEX_NOT_FOUND: {
    status: 404,
    meaning: 'The collection has no index of that name.',
    messages: {
      noIndex: "collection {collection} has no index named '{index}' (indexes: {known})",
    },
  },
  ERR_INDEX_LIMIT: {
    status: 400,
    meaning: 'Creating the index would pass the limit.',
    messages: {
      tooMany: 'collection {collection} already has {count} indexes, the most allowed',
    },
  },
  ERR_UNIQUE_VIOLATION: {
    status: 409,
    meaning: 'A write would store a duplicate value in a unique index.',
    messages: {
      duplicate:
        "unique index '{index}' on {collection} ({paths}) already holds {shown}; nothing of this write was stored",
    },
  },
  ERR_INDEX_STALE: {
    status: 409,
    meaning:
      'A write would add a value to a unique index left stale by a skipIndexes load, which holds no entries to check it against.',
    messages: {
      uniqueUnchecked:
        "unique index '{index}' on {collection} ({paths}) is stale after a skipIndexes load and cannot check {shown}; rebuild the collection's indexes first (POST /admin/rebuild-indexes/{collection}); nothing of this write was stored",
    },
  },
  ERR_BULK_TOO_LARGE: {
    status: 413,
    meaning: 'A bulk insert holds more documents than allowed.',
    messages: {
      tooMany: 'a bulk insert takes at most {limit} documents; got {count}',
      insertTooMany:
        'an INSERT stores at most {limit} documents (one transaction, as a bulk insert); insert the rest in another',
      atomicImport:
        '--atomic imports at most {limit} documents (one transaction); import without --atomic, in batches',
    },
  },
  ERR_BAD_ARGUMENT: {
    status: 400,
    meaning: 'An argument of an API call is not valid.',
    messages: {
      seedCount: 'the seed count must be an integer from 0 to {max}; got {count}',
      term: 'a term is a positive integer; got {term}',
      termTagNegative: 'a term tag is an integer from 0; got {tag}',
      checkpointBytes: 'checkpointBytes must be an integer of at least {min} (1 MiB); got {bytes}',
      maxFileBytes:
        'maxFileBytes must be a whole number of bytes, at least {min} (1 MiB); got {capBytes}',
      snapshotDocuments: 'documents to load come as an array',
      snapshotSeq: "a snapshot's seq is an integer from 0; got {seq}",
      snapshotTerm: "a snapshot's term is a positive integer; got {term}",
      snapshotLastTerm:
        "a snapshot's last term is an integer from 0 to its term {term}; got {lastTerm}",
      snapshotLastChain: "a snapshot's last chain link is 32 hex digits; got {lastChain}",
      snapshotRuns: "a snapshot's term history comes as an array",
      snapshotRunOrder:
        "a snapshot's term history runs forward in seq and term up to its seq {seq}; got {run} after {previous}",
      snapshotIndexes: 'index definitions come as an array',
      snapshotIndexState: "an index state is 'ready' or 'stale'; got {state}",
      snapshotLoadOver:
        'the snapshot load at seq {seq} is over (it finished, or a newer load started over); start a new one',
      snapshotCollectionTwice: "collection '{name}' was already added to this snapshot load",
      logDirMissing:
        "log directory {dir} does not exist; give a node's backup.logArchiveDir or another backup's log/ directory",
      logDirNotDirectory:
        "log directory {dir} is not a directory; give a node's backup.logArchiveDir or another backup's log/ directory",
      logDirEmpty:
        "log directory {dir} holds no change-log segments (changes-<seq>.ndjson); give a node's backup.logArchiveDir or another backup's log/ directory",
      findLimit: 'limit must be a non-negative integer; got {limit}',
      rangeBounds: 'a range find needs at least one of gt, gte, lt, lte',
      insertManyArray: 'insertMany takes an array of documents',
      listLimit:
        'limit must be an integer from 0 to {max}; got {limit} (use scan() for everything)',
      tupleLength: 'findByTuple takes as many values as paths',
      role: 'a role is leader, follower or none; got {role}',
      readOnlyFlag: 'read-only is true or false; got {readOnly}',
      since: 'since must be an integer seq >= 0 (0 reads the whole retained log); got {since}',
      sincePastLast:
        "since {since} is past this node's last seq {lastSeq}: give a seq this node's feed sent",
      feedIteratedTwice: 'a change feed is iterated once; open another',
      promotePort:
        "body: missing field 'port': the replication port this node listens on once it leads",
      port: 'a port is {range}; got {port}',
      replicationPortIsHttp: 'the replication port must differ from the HTTP port {port}',
      termTagTooLarge: 'a term tag is an integer below {limit}; got {tag}',
      ifMatch: 'If-Match takes one entity tag as a GET\'s ETag gives it ("…") or *; got {got}',
      targetExists: '{target} already exists',
      targetUnwritable: '{target} cannot be written ({cause})',
      rebalanceRunning:
        'another rebalance (pid {pid}) is moving to this topology; wait for it, or remove {lock} if that process is not a rebalance',
      ifMatchReplicated:
        "If-Match is not taken for {collection}: it is replicated, and each shard's copy has its own tag; send the write without If-Match",
      placementChanged:
        "collection {name} changes placement ({old} → {placement}); rebalance moves documents between shards, it does not change a collection's placement",
      copyFailed:
        'cannot copy {collection} {id} to its new shard: {cause}; nothing of it was deleted',
      copyDiffers:
        'the copy of {collection} {id} on its new shard does not match; nothing of it was deleted',
      keptChanging:
        '{collection} {id} kept changing on its old shard while it moved; it stays there (its copy holds its latest state); run rebalance again (last: {last})',
      journalUnknownShard:
        '{file} holds a move from {from} to {to}, and one of them is in neither config; run rebalance with the configs of the stopped run first',
      shardKeyNotScalar:
        'a shard key must be a scalar (null, a boolean, a finite number or a string), not {kind}',
      notUrl: "not a URL: '{baseUrl}' (give e.g. http://host:5000)",
      notHttpUrl: "a node's URL is http: or https:, not '{baseUrl}'",
      clientPositive: 'client option {name} must be a positive integer',
      clientNonNegative: 'client option {name} must be an integer >= 0',
      clientTlsInBrowser:
        'client option tls is not taken in a browser: the browser decides which certificates it trusts',
      shardMoved:
        'shard {before} in the old config is {after} in the new one, with no node in common; a shard keeps its nodes (give a moved node a new name)',
      noImportFile: 'no file to import at {file}',
      clusterConfigExists:
        '{file} already exists: pass --force to replace it, or add to it with docdb cluster add-shard',
      notRouterCursor:
        "query parameter since (or the Last-Event-ID header) is not a router cursor: give 0, or a cursor from a line or heartbeat this router sent (got '{since}')",
      sinceNotSeq:
        "query parameter since (or the Last-Event-ID header) must be a seq, an integer >= 0; got '{since}'",
      coordinatorName:
        "a {what} name is 1 to 64 letters, digits, '_', '.' or '-', starting with a letter or digit; got {name}",
      memberAddress: 'member {name} needs its {field} address',
      shardPlanOnWrite: "a shard plan is for a SELECT's part, not {kind}",
      shardPlanRowsField:
        "shard plan field '{extra}' is for kind 'rows'; a partial aggregate answers every group, unsorted",
      shardPlanNotAggregate:
        "a shard plan of kind 'partial' needs aggregates or GROUP BY in the select list",
      shardPlanTop: "shard plan field 'top' must be a non-negative integer; got {top}",
      shardPlanKind: "shard plan kind {kind} is unknown; use 'partial' or 'rows'",
    },
  },
  ERR_SQL_SYNTAX: {
    status: 400,
    meaning: 'A SQL statement cannot be parsed; the message gives line and column.',
    messages: {
      at: '{problem} at {line}:{column}',
      unexpectedCharacter: "unexpected character '{ch}' at {line}:{column}",
      neverClosed: "'[' is never closed at {line}:{column}",
      unterminatedQuoted: 'unterminated quoted identifier at {line}:{column}',
      malformedNumber: "malformed number '{text}{next}' at {line}:{column}",
      unterminatedString: 'unterminated string literal at {line}:{column}',
      unterminatedJson: 'unterminated JSON literal at {line}:{column}',
      invalidJsonLiteral: 'invalid JSON literal ({cause}) at {line}:{column}',
      notString: 'the SQL text must be a string',
    },
  },
  ERR_SQL_PARAM: {
    status: 400,
    meaning: 'The `?` placeholders and the parameter values do not match.',
    messages: {
      notArray: 'parameters must be an array of values',
      notJsonValue:
        'parameter {position} is {value}; parameters are JSON values (finite numbers, strings, booleans, null, arrays, objects)',
      countMismatch:
        'the statement has {placeholders} placeholder(s) but {given} parameter(s) were given',
      noValue:
        'placeholder {position} at {line}:{column} has no value; pass {position} or more parameters',
      notCount: '{clause} must be a non-negative integer; got {value}',
    },
  },
  ERR_SQL_INVALID: {
    status: 400,
    meaning: 'A SQL statement parses but asks for something the dialect does not allow.',
    messages: {
      starWithGroupBy:
        'SELECT * cannot be combined with GROUP BY; list the grouping columns and aggregates',
      notGrouped:
        "column '{path}' must appear in GROUP BY or inside an aggregate such as COUNT({path})",
      joinCondition:
        'JOIN {collection} ON must compare a path of {collection} with a path of a collection before it',
      pathSource:
        "path '{path}' at {line}:{column} must start with one of the joined collections ({sources})",
      updateId: '_id cannot be changed by UPDATE',
      setPastEnd:
        'cannot SET {path}: {holder} has {count} {elements}, and a position may be at most {count} (the next one)',
      setThroughValue:
        'cannot SET {path}: {holder} holds {found}, not {wanted}; SET {holder} = {empty} first to make it one',
      findConditionText:
        'a find condition ({kind}) has no SQL text; it comes from the embedded API or a REST by-key lookup',
    },
  },
  ERR_SQL_TOO_LONG: {
    status: 413,
    meaning: 'A SQL text is longer than the limit.',
    messages: {
      tooLong: 'the SQL text has {length} characters; the limit is {limit}',
      preparedTooLong:
        'a prepared statement has at most {limit} characters; this one has {length}: send it as text instead',
    },
  },
  ERR_QUERY_TIMEOUT: {
    // 503 as a node's own refusal to spend more is: the same statement may run when the node
    // is quieter, or with a narrower WHERE or an index.
    status: 503,
    meaning:
      "A SELECT ran longer than the node's query timeout and was stopped; nothing it read was answered.",
    messages: {
      timedOut:
        'the query ran longer than {limit} and was stopped (the query timeout, --query-timeout-seconds); narrow its WHERE, add an index or a LIMIT, or raise the timeout',
    },
  },
  ERR_QUERY_MEMORY: {
    status: 503,
    meaning:
      'A SELECT was stopped because the process was running out of memory while it held rows (a sort, GROUP BY, DISTINCT, JOIN or a whole answer); the node kept running.',
    messages: {
      heapFull:
        'the query was stopped: the process had {used} of its {limit} heap live while the query held rows (ORDER BY, GROUP BY, DISTINCT, JOIN or the answer itself); add a LIMIT, a narrower WHERE or an index, or stream fewer columns',
    },
  },
  ERR_SQL_HANDLE_UNKNOWN: {
    // 400 as every error about the statement on POST /query is (spec §7).
    status: 400,
    meaning:
      'A prepared statement handle names no statement this server holds (restarted, or evicted): prepare the text again.',
    messages: {
      unknown:
        "no prepared statement has handle '{handle}' here (the server restarted or let it go): POST /query/prepare its SQL again",
    },
  },
  ERR_HEADERS_TOO_LARGE: {
    status: 431,
    meaning: "A request's headers are larger than Node's HTTP parser reads (16 KiB).",
    messages: {
      tooLarge:
        'the request headers are larger than {limit} bytes, the most the node reads: send fewer or shorter headers (a long value belongs in the body)',
    },
  },
  ERR_REQUEST_TIMEOUT: {
    status: 408,
    meaning: 'A request (headers and body) was not received whole within the request timeout.',
    messages: {
      notReceived:
        'the request was not received whole within {seconds} s (the request timeout, --request-timeout-seconds); the connection is closed',
    },
  },
  ERR_BAD_REQUEST: {
    status: 400,
    meaning: 'A request is malformed: a missing or invalid field, parameter or header.',
    messages: {
      // Fastify's own words, for a 4xx it raises that no other template covers.
      fastify: '{message}',
      notHttp: 'the request is not HTTP/1.1 the node can read: {reason}',
      missingField: "{where}: missing field '{field}'",
      sqlOrHandle:
        "body: give either 'sql' (the statement's text) or 'handle' (from POST /query/prepare); {got}",
      unknownParameter: "querystring: unknown parameter '{parameter}'; {route} takes {takes}",
      unknownParameterNone: "querystring: unknown parameter '{parameter}'; {route} takes none",
      unknownField: "{where}: unknown field '{field}'",
      fieldNotWanted: "{where} field '{field}' must be {wanted}; got {got}",
      // Ajv's message: what is wrong with the field, in the validator's words.
      fieldInvalid: "{where} field '{field}' {problem}",
      invalid: '{where} {problem}',
      emptyBody: 'the request body is empty; send a JSON value',
      bodyNotJson: 'the request body is not valid JSON: {cause}',
      bodyPrototypeKey:
        "the request body holds a field named '__proto__', or a 'constructor' field holding 'prototype': neither is allowed, since either could change the prototype of the objects it is read into",
      limitTooLarge: "querystring field 'limit' must be <= {max}; got {limit}",
      routerShardField:
        "body field 'shard' is what a router asks of a shard; a router answers whole results only",
      // The router's binary connection to a node (docs/ARCHITECTURE.md, "The wire").
      wireUpgrade: 'GET /wire upgrades to {ours} only; got Upgrade: {got}',
      wireMessage: 'a {protocol} request has a missing or bad field {key}',
      wireOp: "{protocol} has no operation '{op}' (it has {ops})",
      wireArgument: '{protocol} {op}: argument {position} must be {wanted}',
      wireFrame: 'the {protocol} connection was closed: {cause}',
    },
  },
  ERR_UNAUTHORIZED: {
    status: 401,
    meaning: 'The API key is missing or wrong (`Authorization: Bearer <key>`).',
    messages: {
      keyNeeded: 'the node needs an API key: pass --api-key <key> or set DOCDB_API_KEY',
      flagKeyRefused:
        'the node refused the key given with --api-key ({cause}): give the key the node was started with',
      envKeyRefused:
        'the node refused the key in DOCDB_API_KEY ({cause}): give the key the node was started with',
      missingKey: 'missing API key: send the header Authorization: Bearer <key>',
      headerNotBearer:
        'the Authorization header is not of the form Bearer <key>: send the header Authorization: Bearer <key>',
      wrongKey: 'wrong API key',
    },
  },
  ERR_ROUTE_NOT_FOUND: { status: 404, meaning: 'No endpoint has that method and path.' },
  ERR_BODY_TOO_LARGE: {
    status: 413,
    meaning: 'The request body is larger than the limit.',
    messages: {
      tooLarge:
        'the request body is larger than the limit of {limit} bytes ({limitText}); send less, or split a bulk insert into several',
      wireFrameTooLarge:
        'a {protocol} frame of {bytes} bytes is larger than the limit of {limit} bytes (the body limit and the envelope); the connection was closed',
    },
  },
  ERR_UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    meaning: 'The request body is not JSON (send Content-Type: application/json).',
    messages: {
      notJson: 'unsupported content type; send JSON with Content-Type: application/json',
    },
  },
  ERR_CONFIRMATION_REQUIRED: {
    status: 400,
    meaning: 'Dropping a collection needs the header `X-Confirm: true`.',
    messages: {
      dropCollection:
        'dropping a collection deletes every document in it; send the header X-Confirm: true to confirm',
    },
  },
  ERR_AMBIGUOUS_MATCH: {
    status: 409,
    meaning: 'A replace by key matched more than one document.',
    messages: {
      byKey:
        '{matched} documents in {collection} have {field} = {value}; replace one by its _id instead',
    },
  },
  ERR_NODE_READ_ONLY: {
    status: 503,
    meaning:
      "The node refuses writes: it is read-only (handover), a follower, starting its replication, or loading its leader's snapshot.",
    messages: {
      starting:
        'this node is starting its replication: it takes no writes until it knows whether it leads{hint}',
      loadingSnapshot:
        "this node is loading its leader's snapshot at seq {seq}: it takes no writes until the load finishes",
      follower: 'this node is a follower{hint}',
      readOnly: 'this node is read-only (handover){hint}',
    },
  },
  ERR_CONFIG_INVALID: {
    status: 400,
    meaning: 'A node setting (config file, flag or environment variable) is invalid.',
    messages: {
      promotePortInUse: 'port {port} is already in use; promote with another port',
      replicationPortTaken:
        'port {port} is already in use; give the replication port another (--replication-port)',
      cannotListen: 'cannot listen on port {port} ({cause})',
      replicationPortInUse: 'replication port {port} is already in use; pick another',
      cannotListenReplication: 'cannot listen on replication port {port} ({cause})',
      followerLeader: 'a follower needs the leader host and port',
      leaseUnreadable:
        '{file} cannot be read ({cause}): it records which followers may promote themselves; restore it, or remove it if no follower of this node watches it',
      configUnreadable: '--config: cannot read the config file {configPath} ({code})',
      configNotJson: '--config: {configPath} is not valid JSON ({cause}); fix the file',
      configNotObject: '--config: {configPath} must hold a JSON object, not {type}',
      requiredKey: '{key} in {configPath}: missing; the config file must set {list}',
      unknownKey: '{path} in {configPath}: unknown key; the keys here are {known}',
      sectionNotObject: '{path} in {configPath}: must be an object, not {type}',
      invalidValue: '{label}: {value} is not valid; give {wanted}',
      badEnvReference:
        '{label}: {reference} does not name an environment variable; write env:VAR_NAME (letters, digits, underscores)',
      envUnset:
        '{label}: reads the environment variable {variable} (env:{variable}), which is not set; set it or put the password in the file',
      envEmpty:
        '{label}: the environment variable {variable} (env:{variable}) is empty; set it to the certificate password',
      empty: '{label}: must not be empty; give a value or leave it out',
      controlCharacters: '{label}: {value} contains control characters',
      notRole: '{label}: {value} is not a role; give {wanted}',
      notHost: '{label}: {value} is not a host name or address (no URL, no spaces)',
      wrongType: '{label}: must be {wanted}, not {type}',
      notString: '{label}: must be a string, not {type}',
      withoutCertificate: '{label}: set, but no TLS certificate is; add {certPath}, or remove it',
      withoutRole:
        '{label}: set, but no replication role is; add {role} (or {file} in the config file) with leader or follower, or remove it',
      withoutAutoFailover:
        '{label}: only used with auto-failover; set {silenceSeconds} ({file}) too, or remove it',
      sectionMissingKey: '{file}: missing; {section} needs {setting} ({help}), or remove {section}',
      followerNeeds: '{label}: a follower needs {title} ({whereToSet})',
      replicationPortIsHttp:
        '{replicationPort}: {value} is also the HTTP port ({httpPort}); replication needs a port of its own',
      logArchiveAhead:
        "backup.logArchiveDir: {dir} holds entries up to seq {seq}, past this node's {lastSeq}; point backup.logArchiveDir at a new directory (a restored node starts a new archive)",
      logArchiveOtherTerm:
        "backup.logArchiveDir: {dir} holds seq {seq} of term {term}; this node's is of term {ourTerm}; point backup.logArchiveDir at a new directory (a restored node starts a new archive)",
      headerTimeout:
        'the header timeout ({headerSeconds} s) may not be longer than the request timeout ({requestSeconds} s)',
      tlsFileUnreadable: '{title} ({whereToSet}): cannot read {file} ({code})',
      keyWithPkcs12:
        '{title} ({whereToSet}): {certPath} is a PKCS#12 file, which holds its key; give a key file only with a PEM certificate',
      tlsUnusable:
        'security.tls: cannot use {certPath}{withKey} ({cause}); check the certificate ({certFlag}, certPath: a .pfx/.p12, or a PEM with the certificate chain and the private key), the key ({keyFlag}, keyPath) and the password ({passwordFlag}, certPassword)',
      dataDirIsFile:
        'data directory {dataDir} is a file, not a directory; set {whereToSet} to a directory (it is created when missing)',
      portInUse: 'port {port} is already in use; pick another with {whereToSet}',
      portPrivileged: 'port {port} needs privileges this process lacks',
      labelled: '{label}: {cause}',
      withoutCoordinator: '{label}: set, but no coordinator is; add {coordinator}, or remove it',
      withCoordinator:
        '{label}: set, but so is a coordinator ({coordinator}): a coordinated node leads while it holds the lease in etcd and follows whoever holds it otherwise, so it takes no role, leader host or port, or auto-failover; remove one of them',
      coordinatedNeeds: '{coordinator}: a coordinated node needs its {title} ({whereToSet})',
      routerPortInUse:
        'port {port} is already in use; pick another with --port or router.port in {config}',
      leaseTtl: 'the coordinator lease TTL is whole seconds from {min} to {max}; got {ttlSeconds}',
      writeStopMargin:
        'the write-stop margin is whole milliseconds above 0 and at most half the lease TTL ({ttlMs} ms); got {marginMs}',
      callTimeout:
        'the coordinator call timeout is whole milliseconds above 0 and below the lease TTL less the margin ({ttlMs} ms); got {callTimeoutMs}',
      coordinatorMs: 'the coordinator {what} is whole milliseconds, 0 or more; got {chosen}',
      coordinatorNoScheme: 'coordinator URL {text}: it has no scheme (etcd://); {example}',
      coordinatorScheme:
        'coordinator URL {text}: the scheme is {scheme}://, and docdb speaks only to etcd (etcd://); {example}',
      coordinatorParts:
        'coordinator URL {text}: it has {parts}, which etcd URLs do not take; {example}',
      coordinatorNoHost: 'coordinator URL {text}: it names no host; {example}',
      coordinatorTooManyHosts:
        'coordinator URL {text}: it names {count} hosts, more than the {limit} allowed; {example}',
      coordinatorEmptyHost:
        'coordinator URL {text}: it has an empty host between commas; {example}',
      coordinatorPortOnly: 'coordinator URL {text}: {item} has no host before the port; {example}',
      coordinatorBadHost:
        'coordinator URL {text}: {host} is not a host name or IP address; {example}',
      coordinatorBadPort:
        'coordinator URL {text}: the port {portText} of {host} is not {range}; {example}',
    },
  },
  ERR_CLUSTER_CONFIG_INVALID: {
    status: 400,
    meaning:
      'A cluster.json is missing, not JSON, or breaks its format; the message names the field.',
    messages: {
      notObject: '{at}must be an object, not {value}',
      unknownField: '{at}unknown field (allowed: {keys})',
      missing: '{at}is missing',
      notPort: '{at}{value} is not a port ({range})',
      notShardName:
        "{at}{value} is not a shard name (1 to {limit} letters, digits, '.', '_' or '-', and not __proto__)",
      notHttpUrl: '{at}{value} is not an http(s) URL',
      portZero: "{at}{value} has port 0: give the node's port",
      credentials: '{at}must not carry credentials: give the key as apiKey',
      urlPath:
        '{at}{value} has a path, query or fragment: give only scheme, host and port ({origin})',
      emptyString: '{at}must be a non-empty string',
      controlCharacter: '{at}contains a control character',
      notArray: '{at}must be an array, not {value}',
      tooManyShards: '{at}holds {count} shards; the limit is {limit}',
      sameName:
        '{at}{name} is already the name of shards[{sameName}] (shard names compare without letter case)',
      replicatedWithPath: '{at}a replicated collection has no shard-key path',
      notStrategy: '{at}{strategy} is not a strategy (hash or replicated)',
      nested: '{at}{cause}',
      tooManyCollections: '{at}holds {count} collections; the limit is {limit}',
      sameCollection:
        '{at}is collection "{name}" again (collection names compare without letter case)',
      version: '{at}{version} is not supported: this docdb reads version {versionRead}',
      tooLarge: '{at}is {size} bytes; the limit is {limit}',
      noFile: '{at}no such file: create it with docdb cluster init {file}',
      unreadable: '{at}cannot be read: {cause}',
      notJson: '{at}is not JSON: {cause}',
      collectionExists:
        'collection "{canonical}" is already in the cluster ({existing}); a placement does not change by add-collection',
      shardIsRouter:
        'a shard answered GET /stats as a router does; a shard must be a node, not a router',
      noShards: 'the cluster has no shards: add one with docdb cluster add-shard',
      ringNameTwice: 'a shard name appears twice in the ring',
      notMemberList: '{at}must be a non-empty array of node URLs, not {value}',
      tooManyMembers: '{at}lists {count} members; a replica set has at most {limit}',
      sameMember: '{at}{member} is {field}[{same}] again',
      endpointAndMembers:
        '{at}has both endpoint and members: give one node as endpoint, or a replica set as members',
      nodeInTwoShards: '{at}{url} is already {shards} ({name}): a node serves one shard',
      shardExists: 'shard {shard} is already in the cluster: choose another name',
      noShard: 'no shard named {name} (shards: {known})',
      memberInOtherShard: '{member} is already a node of shard {holder}: a node serves one shard',
      notMember: '{member} is not a member of shard {shard}',
      onlyMember:
        '{member} is the only node of shard {name}, which holds its documents: move them away with docdb rebalance first',
    },
  },
  ERR_CLUSTER_COLLECTION_UNKNOWN: {
    status: 400,
    meaning:
      'A router was asked about a collection its cluster.json does not place; add it with docdb cluster add-collection.',
    messages: {
      notPlaced:
        'collection "{name}" is not in the cluster config; place it with docdb cluster add-collection <config> {name} (hash <path> | replicated)',
    },
  },
  ERR_CLUSTER_JOIN_UNROUTABLE: {
    status: 400,
    meaning:
      'A router cannot run a JOIN whose rows may live on different shards (the right side is neither replicated nor hashed on the join key).',
    messages: {
      fromReplicated:
        'JOIN {name}: {name} is hash-sharded but {from} is replicated, so each shard holds only part of {name}; make {name} replicated or put the hash-sharded collection in FROM',
      notOnKeys:
        'JOIN {name}: the rows to join may live on different shards; a JOIN needs its right side replicated, or both sides hash-sharded on the join paths ({from} on "{fromPath}", {name} on "{rightPath}")',
    },
  },
  ERR_SHARD_KEY_MISSING: {
    status: 400,
    meaning: "A document written through a router lacks its collection's shard key, or changes it.",
    messages: {
      missing:
        'the document has no shard key "{path}"; every document of a hash collection needs one, so the router knows its shard',
      notScalar:
        'the shard key "{path}" holds an {kind}; a shard key must be a string, number, boolean or null',
      keyChanged:
        'the replacement changes the shard key "{path}" to a value shard {shard} owns; delete the document and insert the new one instead',
      updateSetsKey:
        'UPDATE may not SET {path}: it changes the shard key "{keyPath}", which decides the document\'s shard; delete the document and insert the new one instead',
    },
  },
  ERR_SHARD_UNAVAILABLE: {
    status: 503,
    meaning:
      "A shard the router needs did not answer or refused the router's API key; the router never answers a partial result.",
    messages: {
      noShards: 'the cluster config lists no shards',
      noAnswer: 'shard {name} ({urls}) did not answer: {cause}',
      keyRefused:
        "shard {name} ({urls}) refused the router's API key: set shards[].apiKey of {name} in cluster.json to the key that node runs with",
      feedNoAnswer:
        'shard {shard} did not answer its change feed: {cause}; follow again from the last cursor',
      feedEnded:
        'shard {shard} ended its change feed (it may be shutting down); follow again from the last cursor',
      noLeader: 'shard {name} has no leader now: {members}',
    },
  },
  ERR_INTERNAL: {
    status: 500,
    meaning: 'A bug in docdb. The body carries a request id; the log has the detail.',
    publicMessage: 'internal error',
  },
  ERR_STORAGE_LOCKED: {
    status: 409,
    meaning: 'Another process holds the data file for writing.',
    messages: {
      catalogChanging:
        'another process kept changing the catalog of {file} while verify started; run it again when it is quieter',
      lockNotTaken: 'could not take the writer lock of {file}',
      held: '{file} is held for writing: {reason} since {since}. Stop that process first, or send the work to it (a running node takes writes over its API).',
      inUseByRestore:
        '{file} is in use by process {pid} ({command}); stop it before restoring over it',
      viaNode: '{lock} If it is a docdb node ({nodeUrl} by default), {viaNode}.',
    },
  },
  ERR_STORAGE_READ_ONLY: {
    status: 503,
    meaning: 'The data file was opened read-only and cannot take writes.',
    messages: {
      readOnlyWrites: '{file} is open read-only; writes go through the process that holds it',
      heldBy: 'this session is read-only: {lock}',
    },
  },
  ERR_STORAGE_NOT_FOUND: {
    status: 404,
    meaning:
      'No data file exists at the given path, or no data directory can be made or used there.',
    messages: {
      noFile: 'no docdb data file at {file}',
      notDirectory:
        '{dir} is a file, not a data directory: give a directory for the data, or the data file itself by a path ending in .docdb',
      dirUnmade: 'the data directory {dir} cannot be made ({cause})',
    },
  },
  ERR_STORAGE_FORMAT: {
    status: 409,
    meaning: 'The data file was written by an incompatible version of docdb.',
    messages: {
      unreadableFormat: '{file} has data format {format}; this docdb reads formats {formatsRead}',
    },
  },
  ERR_STORAGE_CLOSED: {
    status: 503,
    meaning: 'The database has been closed.',
    messages: {
      closed: 'the database is closed',
    },
  },
  ERR_STORAGE_FAILED: {
    status: 503,
    meaning: 'The storage engine could not commit a write (for example, the disk is full).',
    publicMessage:
      "the storage engine could not commit the write, so it was not stored; the node's log " +
      'has the cause under this request id',
    messages: {
      logNotDurable:
        'the write-ahead log in {dir} could not be written or flushed ({cause}); the writes waiting on it are not acknowledged (they may be there after a restart, or not)',
      checkpointNotDurable:
        'the checkpoint of {file} could not be made ({cause}); the writes waiting on it are not acknowledged (they may be there after a restart, or not)',
      catalogUnreadable:
        'the database takes no more writes: after an earlier commit its catalog could not be read again ({cause}); close and reopen it',
      engineFailed:
        'the write was not committed: the storage engine failed (the log has the cause)',
    },
  },
  ERR_STORAGE_TRUNCATED: {
    status: 500,
    meaning:
      'The data file is shorter than its own header says: it was cut (a copy or disk failed).',
    messages: {
      shorterThanMeta: 'the data file is shorter than its meta pages',
      empty:
        '{file} is empty (0 bytes): the data file was cut or never written. Restore it from a backup, or delete it to start an empty database.',
      shorterThanHeader:
        '{file} is truncated: it is {sizeBytes} bytes, shorter than the header of a data file (two pages). Restore it from a backup or a follower; docdb will not read a cut file.',
      shorterThanRecorded:
        '{file} is truncated: it should be at least {expectedBytes} bytes ({expectedPages} pages of {pageSize} bytes) but is {sizeBytes} bytes. Restore it from a backup or a follower; docdb will not read a cut file.',
    },
  },
  ERR_STORAGE_CORRUPT: {
    status: 500,
    meaning: 'A stored page or record of the data file is damaged and cannot be read.',
    messages: {
      recordUndecodable: 'a stored record cannot be decoded',
      unreadable:
        'the data file {file} is damaged: {what} cannot be read. Run docdb verify on the file to list the damage, and restore it from a backup or a follower.',
      pagesDamaged:
        'the data file {file} is damaged: {what} do not hold together ({faults}). docdb does not open it, since reading those pages could crash the process. Run docdb verify on the file to list the damage, and restore it from a backup or a follower.',
      indexEntryNotId: 'an index entry holds {bytes} bytes, not an id',
      noMetaPage:
        '{file} is not a docdb data file, or its header is damaged: neither meta page is readable. Restore it from a backup or a follower.',
      badHeader:
        '{file} is damaged: its header is not a valid data file header. Restore it from a backup or a follower.',
      checkpointNotRecord:
        "{file} is damaged (it is not a checkpoint record): it records the data file's last durable state; restore the data directory from a backup or a follower",
      checkpointFormat:
        "{file} is damaged (format version {version}; this docdb reads {versionRead}): it records the data file's last durable state; restore the data directory from a backup or a follower",
      checkpointLength:
        "{file} is damaged (its length does not fit a page size of {pageSize}): it records the data file's last durable state; restore the data directory from a backup or a follower",
      checkpointChecksum:
        "{file} is damaged (its checksum does not match): it records the data file's last durable state; restore the data directory from a backup or a follower",
    },
  },
  ERR_STORAGE_FULL: {
    status: 507,
    meaning:
      'The disk holding the data file is full, or the file reached its size cap: the write was not stored.',
    messages: {
      logNotDurable:
        'the disk holding {dir} is full: the write-ahead log in {dir} could not be written or flushed ({cause}); the writes waiting on it are not acknowledged (they may be there after a restart, or not); free space and write again (reads go on)',
      checkpointNotDurable:
        'the disk holding {dir} is full: the checkpoint of {file} could not be made ({cause}); the writes waiting on it are not acknowledged (they may be there after a restart, or not); free space and write again (reads go on)',
      sizeCap:
        'the write was not stored: the data file {file} reached its size cap of {cap} (storage.maxFileMiB, --max-file-mib or DOCDB_MAX_FILE_MIB on a node; maxFileBytes when opened embedded); delete documents, or restart with a larger cap (reads go on)',
      diskFull:
        'the write was not stored: the disk holding {dir} is full{freeText}; free space and write again (reads go on)',
      diskFullAtOpen:
        '{file} cannot be opened for writing: the disk holding it is full, so its writer lock cannot be written; free space and open it again (a read-only open works meanwhile)',
    },
  },
  ERR_CHANGE_INVALID: {
    status: 400,
    meaning: 'A change-log entry cannot be read or applied on this node.',
    messages: {
      badChainLink: 'change {seq} has a chain link that is not 32 hex digits',
      structuresOutOfOrder:
        "the leader's shared structures from id {from} came before those from id {expected}",
      entryCut: 'a change-log entry is cut short after its chain link',
      entryChainLink: 'a change-log entry has a chain link that is not 32 hex digits ({chain})',
      entryDocument: 'a change-log entry (seq {seq}) holds a document that is not stored bytes',
      entryTerm: 'a change-log entry has no valid term ({term})',
      entryNotMessagePack: 'a change-log entry is not MessagePack',
      entryNotMap: 'a change-log entry is not a map',
      entryFormat:
        'a change-log entry has format version {version}; this docdb reads versions 0 and {versionRead}',
      entryOp: 'a change-log entry has an unknown op {op}',
      entryField: 'a change-log entry has no valid {field} ({value})',
      entryCollection: 'a change-log entry names no collection',
      applyBadId:
        "change {seq} ({op} on {collection}) cannot be applied: {id} is not a document id; this node's data no longer matches the leader's",
      applyNoDocument:
        "change {seq} ({op} on {collection}) cannot be applied: document {id} does not exist; this node's data no longer matches the leader's",
      applyNoCollection:
        "change {seq} ({op} on {collection}) cannot be applied: the collection does not exist; this node's data no longer matches the leader's",
      applyCollectionNotCreated:
        "change {seq} ({op} on {collection}) cannot be applied: the collection cannot be created; this node's data no longer matches the leader's",
      applyUnknownOp:
        "change {seq} ({op} on {collection}) cannot be applied: its op is unknown; this node's data no longer matches the leader's",
      applyUndecodable:
        "change {seq} ({op} on {collection}) cannot be applied: a document does not decode with the leader's structures; this node's data no longer matches the leader's",
    },
  },
  ERR_CHANGE_OUT_OF_ORDER: {
    status: 409,
    meaning: 'A change-log entry does not follow the last applied seq without a gap.',
    messages: {
      gap: 'change {seq} cannot be applied after {lastSeq}: entries apply in seq order without gaps; ask for the entries after {lastSeq}',
    },
  },
  ERR_CHANGE_STALE_TERM: {
    status: 409,
    meaning: 'A change-log entry or term is older than the term this node is in.',
    messages: {
      olderThanPrevious:
        'change {seq} is of term {term}, older than the entry before it (term {previousTerm}): it comes from a stale leader',
      olderThanNode:
        "term {term} is older than this node's term {current}: a leader of an older term is stale",
    },
  },
  ERR_CHANGE_FEEDS_FULL: {
    status: 503,
    meaning: 'The node (or router) serves as many change feeds as it allows (CHANGE_FEEDS_MAX).',
    messages: {
      full: 'this server has {limit} change feeds open, the most it serves at once: close one, or follow through another node (a follower serves its log too)',
    },
  },
  ERR_CHANGES_TRIMMED: {
    status: 410,
    meaning: 'The change-log entries asked for were trimmed; resync from a snapshot.',
    messages: {
      trimmed:
        'the change log no longer holds the entries after {since}: it starts after {seqFloor}; read a snapshot, then the entries after its seq',
      replacedBySnapshot:
        'the change log followed after {since} was replaced by a snapshot load: it now starts after {seqFloor}; read a snapshot, then the entries after its seq',
      feedTrimmed:
        'the change log no longer holds the entries after {since}: it keeps those after {seqFloor}; read the data again (a snapshot), then follow from the last seq',
      followerBehindFloor:
        'the follower needs the entries after {next} but the log starts after {seqFloor}; it catches up from a snapshot when it reconnects',
    },
  },
  ERR_BACKUP_TARGET_EXISTS: {
    status: 409,
    meaning: 'A backup was asked to write into a directory that exists and is not empty.',
    messages: {
      notEmpty: '{dir} exists and is not empty: a backup goes into a new or empty directory',
    },
  },
  ERR_BACKUP_INVALID: {
    status: 400,
    meaning: 'The path is not a docdb backup, or its manifest cannot be read.',
    messages: {
      noBackup: 'no backup at {source}',
      noManifest:
        '{dir} is not a usable docdb backup: it has no {manifestName} (not a backup, or one that never finished)',
      manifestNotJson: '{dir} is not a usable docdb backup: {manifestName} is not JSON ({cause})',
      noDataFile: '{dir} is not a usable docdb backup: {manifestName} lists no {dataFileName}',
      badFileEntry:
        '{dir} is not a usable docdb backup: {manifestName} lists a file it cannot describe: {entry}',
      noManifestLine:
        '{source} is not a docdb backup: it does not start with a manifest line (of at most {limit} bytes)',
    },
  },
  ERR_BACKUP_CORRUPT: {
    status: 400,
    meaning: "A backup's file is missing, truncated or altered: its size or checksum differs.",
    messages: {
      missing: '{dir}: {path} is missing; the backup is damaged: use another copy of it',
      truncated:
        '{dir}: {path} is truncated: {size} of its {bytes} bytes are there; the backup is damaged: use another copy of it',
      sizeDiffers:
        '{dir}: {path} has {size} bytes where the backup wrote {bytes}; the backup is damaged: use another copy of it',
      checksum:
        '{dir}: {path} does not match its checksum (a byte changed since the backup); the backup is damaged: use another copy of it',
      streamTruncated:
        '{source}: it ends inside {path} ({bytes} of {total} bytes): truncated; the backup stream is damaged',
      streamTrailing: '{source}: it has bytes past its last file; the backup stream is damaged',
    },
  },
  ERR_BACKUP_FORMAT: {
    status: 400,
    meaning:
      'A backup was written in a format, or holds a data file format, this docdb cannot read.',
    messages: {
      backupFormat: '{dir} has backup format {backupFormat}; this docdb reads format {formatRead}',
      dataFileFormat:
        '{dir} holds a data file of format {fileFormat} (docdb {docdbVersion}); this docdb reads formats {formatVersionsRead}',
    },
  },
  ERR_BACKUP_LOG_INVALID: {
    status: 400,
    meaning: 'A change-log segment has a line that is not an entry.',
    messages: {
      notJson:
        '{file} line {line}: not JSON ({cause}); a change-log segment holds one JSON entry per line',
      notEntry:
        '{file} line {line}: not a change-log entry (no seq or op); a change-log segment holds one JSON entry per line',
    },
  },
  ERR_RESTORE_TARGET_NOT_EMPTY: {
    status: 409,
    meaning: 'A restore would replace a data directory that holds data, without --force.',
    messages: {
      notEmpty:
        '{dir} is not empty; restore into a new directory, or pass --force to replace its data file',
    },
  },
  ERR_RESTORE_POINT_UNREACHABLE: {
    status: 400,
    meaning: 'The backup and the change-log segments given cannot reach the point asked for.',
    messages: {
      otherHistory:
        "{segment} holds seq {base} of term {term}, but the backup's seq {base} is of term {lastTerm}: the log is of another history",
      gap: 'the logs have no entry {next}: they cannot be replayed past seq {last}; add the log directory that holds it',
      backupNewer:
        'the backup was taken at seq {base}, after seq {toSeq}: restore an older backup to reach it',
      logsShort:
        'the logs given reach seq {reached}, not {toSeq}: add the log directory that holds the rest (--log-dir)',
    },
  },
  ERR_IMPORT_INVALID: {
    status: 400,
    meaning: 'An import file is neither NDJSON nor a JSON array, or its header is not valid.',
    messages: {
      arrayNotClosed: 'line {line}: the JSON array is not closed: the file ends inside it',
      textAfterArray: 'line {line}: text after the end of the JSON array',
      notArray: 'line {line}: expected a JSON array',
      missingElement: 'line {line}: an array element is missing before a comma',
      headerWithoutIndexes: 'line 1: the $docdb header has no index list',
    },
  },
  ERR_REPLICATION_STATE: {
    status: 409,
    meaning: "A replication request does not fit the node's role or state (promote on a leader).",
    messages: {
      alreadyLeads: 'this node already leads, on replication port {port}',
      followerCannotLead:
        'this node is a follower; a follower takes over with POST /replication/promote',
      promoteLeader: 'this node already leads',
      promoteSingle:
        'only a follower is promoted; a single node starts leading with POST /replication/start-leader',
      noLeaseHolder: "no follower named {name} holds this leader's lease; none does",
      notLeaseHolder: "no follower named {name} holds this leader's lease; these do: {held}",
      alreadyFollows:
        'this node already follows {leader} (told that leader again with another sharedSecret, it reconnects with that secret)',
      leaderTakesWrites:
        'this node leads and takes writes; turn it read-only first (POST /replication/read-only), then let it follow the new leader',
      followerTakesNoWrites:
        'this node is a follower: it takes writes only once it leads; promote it (POST /replication/promote) or send writes to its leader',
      newerTermSeen:
        'this node saw {term} (from {by}), newer than its own: another node leads; let it follow that leader (POST /replication/start-follower), or restart it as a follower',
      dataIncomplete:
        "this node's data is incomplete (a snapshot load from its leader was cut short); let it finish catching up before promoting it",
      autoFailoverOnFollower: 'auto-failover watches a leader: only a follower enables it',
      leaseOnLeader: 'only a leader holds a lease from its followers',
      termRoundsSpent:
        'this history has been through {limit} promotions, the most a term can count; copy the data into a new node to start a new history',
      joinFromSingle: 'a node takes part in a replica set only from a single node',
      coordinated:
        'this node takes its role from the coordinator (replica set {set}), so it is not {what} by request: the member holding the etcd lease leads and the others follow it. To move leadership, POST /replication/handover to the leader; to take a node out, stop it',
      leaderAddress: "the leader {name}'s replication address {address} is not host:port",
      handoverUncoordinated:
        'a handover by the coordinator needs one (--coordinator); without it, hand over with read-only, then promote the follower (docs/replication.md)',
      handoverOtherLeads:
        'only the leader hands over, and this node does not lead replica set {set}; {leader} does: send it there',
      handoverNoLeader:
        'only the leader hands over, and this node does not lead replica set {set}; no member does now',
      etcdRevisionTooLarge:
        "etcd revision {revision} cannot be a term's round (1 to {limit}); start a new etcd cluster for the coordinator",
      handoverToSelf: '{to} is this node, which leads already',
      handoverNoFollower:
        '{to} does not follow this leader now, so it cannot be handed the leadership; no follower is connected',
      handoverNotFollower:
        '{to} does not follow this leader now, so it cannot be handed the leadership; these follow it: {names}',
      handoverNoneConnected: 'no follower is connected to hand the leadership over to',
    },
  },
  ERR_REPLICATION_TIMEOUT: {
    status: 503,
    meaning:
      'A write committed on the leader but not acknowledged: not enough followers applied it in time (syncFollowers). A failover may roll it back.',
    messages: {
      notAcknowledged:
        "the write is committed on this node as seq {seq} but not acknowledged: only {applied} of the {required} followers it waits for applied it within {seconds} s. It may yet reach the followers when they catch up, or be rolled back by a failover (into this node's rollback files); read it back to know",
      handoverTimeout:
        'the handover to {target} did not happen: it had not applied seq {lastSeq} within {seconds} s; this node leads on and takes writes again',
    },
  },
  ERR_REPLICATION_NO_LEASE: {
    status: 503,
    meaning:
      'A leader refused a write (or did not acknowledge one it committed) because it has not heard from an auto-failover follower that may be promoting itself.',
    messages: {
      leadershipLapsed:
        "this node's lease on the leadership of replica set {set} is not valid (lost, resigned, or never won), so it acknowledges no write; send writes to the leader the coordinator names (GET /replication/status, coordinator.leader)",
      lapsed:
        'this leader has not heard from its auto-failover follower {name}{others} {heard}, and {name} promotes itself after {silenceSeconds} s of silence: writes are refused so that two nodes never acknowledge at once (reads go on). They resume once {name} answers again; if it is gone for good, release it with POST /replication/forget-follower {body}',
      notAcknowledged:
        "the write is committed on this node as seq {seq} but not acknowledged: {lapse}. It may yet reach the followers when they catch up, or be rolled back by a failover (into this node's rollback files); read it back to know",
    },
  },
  ERR_REPLICATION_PROTOCOL: {
    status: 502,
    meaning: 'A replication peer sent something the protocol does not allow.',
    messages: {
      noType: 'a replication message has no known type (t)',
      unexpectedType: 'a replication message of type {type} came where {expected} was expected',
      badField: 'the replication message {type} has a missing or bad field {key}',
      badHelloField: 'the replication message hello has a missing or bad field {key}',
      otherVersion:
        'the node at {address} speaks replication protocol {protocol}; this node speaks {ours}: run the same docdb version on both',
      forkSearchTooLong:
        "the search for where the follower's history parts from this leader's took more than {limit} probes",
      frameTooLarge: 'a replication frame of {bytes} bytes is larger than the limit of {limit}',
      frameAnnouncedTooLarge:
        'a replication frame announces {bytes} bytes, more than the limit of {limit}; the peer does not speak this protocol',
      frameNotMessagePack: 'a replication frame is not valid MessagePack ({cause})',
    },
  },
  ERR_REPLICATION_CONNECTION: {
    status: 502,
    meaning: 'A replication connection could not be made or was lost.',
    messages: {
      leaderStopped: 'the leader stopped replicating',
      // The failure's own words: what ended the session is said by the error that ended it.
      sessionFailed: '{cause}',
      failed: 'the connection to {address} failed ({cause})',
      closedByPeer: '{address} closed the connection',
      silent: '{address} sent nothing for {seconds} s',
      closed: 'the connection was closed',
      noAnswer: 'no answer from {address}',
      unreachable: 'cannot reach {address} ({cause})',
      followerStopped: 'this follower stopped following',
    },
  },
  ERR_REPLICATION_AUTH: {
    status: 403,
    meaning: 'The replication handshake failed: the shared secret is missing or does not match.',
    messages: {
      noticeProof:
        '{target} did not prove it knows the replication secret; its answer is not taken',
      leaderProof:
        'the leader at {leader} did not prove it knows the replication secret{enforced}; this follower does not take its entries',
    },
  },
  ERR_REPLICATION_REFUSED: {
    status: 502,
    meaning: 'The node this one connected to (its leader) refused it, with a reason.',
    messages: {
      notice: '{target} refused the notice: {reason}',
      handshake: 'the node at {address} refused this one: {reason}',
    },
  },
  ERR_REPLICATION_STALE_LEADER: {
    status: 409,
    meaning: 'A leader of an older term than its follower: another node was promoted since.',
    messages: {
      olderTerm:
        "the leader at {leader} ({node}) is in {term}, older than this node's {ourTerm}: it is a stale leader, replaced by a promotion; this follower takes no entries from it",
    },
  },
  ERR_REPLICATION_DIVERGED: {
    status: 409,
    meaning:
      'A follower holds writes its leader never had, older than its change log keeps: it cannot roll them back safely.',
    messages: {
      unrecoverable:
        'this node holds writes the leader {node} never had, from before seq {firstSeq}, where its change log starts: they cannot be rolled back into a file, so it does not follow. Keep its data directory aside and start this node with an empty one to follow {node}',
    },
  },
  ERR_REPLICATION_APPLY: {
    status: 500,
    meaning: "A follower could not apply its leader's entries.",
    messages: {
      failed: "applying the leader's entries up to seq {last} failed: {cause}",
    },
  },
  ERR_COORDINATOR_UNREACHABLE: {
    status: 503,
    meaning:
      'The coordinator (etcd) named by the coordinator URL could not be reached or did not answer in time.',
    messages: {
      callFailed:
        'the coordinator {url} did not complete {what}: {cause}; check that etcd runs there and is reachable from this machine',
    },
  },
  ERR_CLIENT_UNREACHABLE: {
    status: 503,
    meaning: 'The typed client could not reach the node, or lost the connection before the answer.',
    messages: {
      closed: '{url}: this client is closed; connect again',
      unreachable:
        '{url}: cannot reach the node, or lost the connection before the whole answer ({codePrefix}{cause}); check that it runs and the URL',
    },
  },
  ERR_CLIENT_TIMEOUT: {
    status: 504,
    meaning: 'The typed client gave up on a node that did not answer within its timeout.',
    messages: {
      timeout:
        "{url}: no complete answer within {timeoutMs} ms (the client's timeoutMs); the node may be overloaded or stuck{writeHint}",
    },
  },
  ERR_CLIENT_PROTOCOL: {
    status: 502,
    meaning:
      'An answer is not what the REST API promises (not docdb JSON, an NDJSON stream cut short).',
    messages: {
      notDocdbError:
        '{url}: answered {status} without a docdb error body ({text}); is this a docdb node?',
      lineNotJson: '{where}: an NDJSON line is not JSON ({text})',
      lineTooLong: '{where}: an NDJSON line is longer than {limit} bytes',
      answerNotJson: '{url}: the answer is not JSON ({text}); is this a docdb node?',
      answerTooLarge:
        '{url}: the answer is larger than one JavaScript string holds (about 512 MiB); read it as a stream (queryStream, or POST /query?stream=true)',
      noMetaLine: '{where}: the NDJSON stream had no meta line',
      streamCut:
        '{where}: the stream ended after {documents} of {count} documents; the node cut it short (its log says why)',
      wireBroken:
        '{url}: the node broke the {protocol} protocol ({cause}); the requests on that connection failed and it is opened anew',
    },
  },
} as const satisfies Record<string, CatalogueEntry>;

/**
 * The messages of errors passed on with the code of the error they pass on: a bulk item's
 * error numbered, a query parameter's named. The code is the passed-on error's, so these
 * belong to no entry; `relayedError` fills them.
 */
export const RELAYED_MESSAGES = {
  // An error's own message under the code of the layer that reports it.
  recoded: '{message}',
  // A shard's change feed failed: which shard's.
  fromShardFeed: 'shard {name}: {message}',
  // A query parameter's value refused: which parameter.
  queryParameter: 'query parameter {parameter}: {message}',
  // A shard's own trouble (read-only, storage, a bug), told by the router: which shard has it.
  fromShard: 'shard {name} ({urls}): {message}',
  bulkItem: 'document {position} of {count}: {message}',
  nothingStored: '{message}; nothing of this write was stored',
  atomicBulkRefused:
    'atomic bulk insert rejected {failed} of {total} documents; nothing was inserted',
  bulkItemNothingStored:
    'document {position} of {count}: {message}; nothing of this write was stored',
} as const satisfies Record<string, string>;

/** The name of a relayed message. */
export type RelayedKey = keyof typeof RELAYED_MESSAGES;

/** Every stable error code docdb can report. */
export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/** The HTTP status that goes with a code. */
export function statusOf(code: ErrorCode): number {
  return ERROR_CATALOGUE[code].status;
}

/** The fixed message a client reads for a code whose own messages stay in the log, if any. */
export function publicMessageOf(code: ErrorCode): string | undefined {
  return (ERROR_CATALOGUE[code] as CatalogueEntry).publicMessage;
}

/** The placeholder names of a template: `'no {a} in {b}'` gives `'a' | 'b'`. */
export type Placeholders<T extends string> = T extends `${string}{${infer Name}}${infer Rest}`
  ? Name | Placeholders<Rest>
  : never;

/** The message templates of a code, by name (none for a code no throw site raises). */
export type MessagesOf<C extends ErrorCode> = (typeof ERROR_CATALOGUE)[C] extends {
  messages: infer M;
}
  ? M
  : Record<never, string>;

/** The names of a code's message templates. */
export type MessageKey<C extends ErrorCode> = keyof MessagesOf<C> & string;

/** The template text of one message of a code. */
export type TemplateOf<
  C extends ErrorCode,
  K extends MessageKey<C>,
> = MessagesOf<C>[K] extends string ? MessagesOf<C>[K] : never;

/** What may fill a placeholder: anything `String()` turns into the text a user reads. */
export type TemplateValue = string | number | bigint | boolean | null | undefined;

/** The values a template needs: exactly one per placeholder. */
export type TemplateValues<T extends string> = {
  readonly [Name in Placeholders<T>]: TemplateValue;
};

/** A placeholder as templates write it; the test of the catalogue holds every `{…}` to it. */
export const PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** The template of one message of a code, or undefined when the catalogue has no such one. */
export function templateOf(code: ErrorCode, key: string): string | undefined {
  const entry: CatalogueEntry = ERROR_CATALOGUE[code];
  return entry.messages?.[key];
}

/** `template` with each placeholder replaced by its value, as a template literal would. */
export function fillTemplate(template: string, values: Readonly<Record<string, unknown>>): string {
  return template.replace(PLACEHOLDER, (_, name: string) => String(values[name]));
}
