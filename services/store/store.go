package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/stdlib"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"modernc.org/sqlite"

	"gitlab.com/glmcp/glmcp/migrations"
	"gitlab.com/glmcp/glmcp/models"
)

// Options tune Open. The zero value is valid.
type Options struct {
	// Logger receives statement logs (DEBUG, without parameters) and slow
	// statements (WARN). Nil discards.
	Logger *slog.Logger
	// SlowQuery is the duration above which a statement is logged at WARN.
	// Zero means 200ms; negative disables.
	SlowQuery time.Duration
	// MaxOpenConns caps the connection pool. Zero means 10 on PostgreSQL
	// and 4 on an SQLite file (writers serialize on the database lock
	// anyway); an in-memory SQLite database always uses exactly one.
	MaxOpenConns int
	// MaxIdleConns is the number of idle connections kept. Zero means
	// MaxOpenConns: a pool that closes what it just opened at every burst
	// above its idle size pays a new session (on PostgreSQL a process
	// fork and authentication) for nothing; ConnMaxIdleTime returns them
	// once the load is gone.
	MaxIdleConns int
	// ConnMaxLifetime recycles connections after this long (PostgreSQL
	// only; zero means 30 minutes) so that a database failover or pgbouncer
	// restart is picked up.
	ConnMaxLifetime time.Duration
	// ConnMaxIdleTime closes a connection idle this long (PostgreSQL only;
	// zero means 5 minutes).
	ConnMaxIdleTime time.Duration
	// BusyTimeout is how long an SQLite statement waits for the write lock
	// before failing. Zero means 10 seconds.
	BusyTimeout time.Duration
	// Now is the clock for created_at/updated_at. Nil means time.Now.
	Now func() time.Time
	// Repositories, when set, creates each new project's git repository
	// (see CreateProject).
	Repositories ProjectRepositories
	// StatementTimeout bounds each statement, from taking a connection to
	// its answer; one that runs out is models.ErrStoreUnavailable. Zero
	// means DefaultStatementTimeout; negative disables.
	StatementTimeout time.Duration
	// AcquireTimeout bounds taking a connection for a transaction (its
	// statements then each have StatementTimeout). Zero means
	// DefaultAcquireTimeout; negative disables.
	AcquireTimeout time.Duration
	// OutageLogInterval is how often, while the database is unavailable,
	// one log line counts the failures. Zero means DefaultOutageLogInterval.
	OutageLogInterval time.Duration
}

// Store is glmcp's database. It is safe for concurrent use. It holds the
// plumbing (Open, Migrate, Ping, Close, WithTx, At) and one field per
// family of methods (st.Issues.LoadIssue, st.Users.CreateUser, …); a
// transaction's Store (WithTx) has its families bound to the transaction.
type Store struct {
	*core

	Projects        *Projects
	Groups          *Groups
	Imports         *Imports
	Issues          *Issues
	MergeRequests   *MergeRequests
	Notes           *Notes
	CI              *CI
	Search          *Search
	Users           *Users
	Tools           *Tools
	Vulnerabilities *Vulnerabilities
	Releases        *Releases
	CodeIndex       *CodeIndex
	Resources       *Resources
	Settings        *Settings
	Audit           *Audit
}

// core is what every family shares: the connection (or transaction), the
// dialect, the clock and the prepared statements. Families embed it.
type core struct {
	// identityStmt reads the identity version (IdentityVersion).
	identityStmt *lazyStmt
	// viewSeqStmt and viewMarksStmt read the embedded store's issue view
	// marks (a versioned IssueViewCache).
	viewSeqStmt, viewMarksStmt *lazyStmt
	// issueView are FindIssueView's statements (by project id, by path).
	issueView *issueViewStmts
	// views holds FindIssueView's cache, if any (UseIssueViewCache).
	views *issueViewSlot
	// viewTx collects the issue view invalidations of the transaction
	// this core runs in (nil outside one; see changedViews).
	viewTx  *viewChanges
	db      *gorm.DB
	dialect string
	now     func() time.Time
	log     *slog.Logger
	repos   ProjectRepositories
	limits  *deadlines
	// st is the Store whose families share this core: a family reaches
	// another through it (s.st.Projects.FindProjectByID).
	st *Store
}

// Projects are projects: creating, finding and listing them, their
// settings and repositories.
type Projects struct{ *core }

// Groups are groups and the memberships of groups and projects, with the
// effective roles they give.
type Groups struct{ *core }

// Imports are project imports and exports: a project's records written
// and read in bulk, import failures, and placeholder users reassigned to
// real ones.
type Imports struct{ *core }

// Issues are issues and work items with their labels, milestones and
// links, and get_issue's view of one.
type Issues struct{ *core }

// MergeRequests are merge requests with their diffs, reviews, approvals
// and discussions.
type MergeRequests struct{ *core }

// Notes are the comments on issues and merge requests.
type Notes struct{ *core }

// CI is pipelines, jobs and job artifacts.
type CI struct{ *core }

// Search is the search tools' queries, each with the viewer's read rules.
type Search struct{ *core }

// Users are users and their credentials: personal access tokens, OAuth
// tokens, identity versions.
type Users struct{ *core }

// Tools are the tool catalog and its rules.
type Tools struct{ *core }

// Vulnerabilities are the code security findings.
type Vulnerabilities struct{ *core }

// Releases are releases and wiki pages.
type Releases struct{ *core }

// CodeIndex is the code index semantic search ranks.
type CodeIndex struct{ *core }

// Resources are resource change announcements and completion reads.
type Resources struct{ *core }

// Settings are the instance's stored settings.
type Settings struct{ *core }

// Audit are the audit events of tool calls (doc/security.md).
type Audit struct{ *core }

// newStore returns the Store whose families share c.
func newStore(c *core) *Store {
	s := &Store{core: c,
		Projects: &Projects{c}, Groups: &Groups{c}, Imports: &Imports{c}, Issues: &Issues{c}, MergeRequests: &MergeRequests{c},
		Notes: &Notes{c}, CI: &CI{c}, Search: &Search{c}, Users: &Users{c}, Tools: &Tools{c},
		Vulnerabilities: &Vulnerabilities{c}, Releases: &Releases{c}, CodeIndex: &CodeIndex{c},
		Resources: &Resources{c}, Settings: &Settings{c}, Audit: &Audit{c}}
	c.st = s
	return s
}

// Open connects to the database named by dsn and checks the connection.
// A dsn starting with postgres:// or postgresql:// opens PostgreSQL through
// pgx; anything else is an SQLite database: a file path (created, with its
// directory, if missing), a file: URI, or ":memory:". SQLite runs with WAL
// journaling, foreign keys on, a busy timeout and immediate transactions
// (a transaction takes the write lock when it begins, so two writers wait
// for each other instead of failing midway).
//
// Open does not migrate; call [Store.Migrate].
func Open(ctx context.Context, dsn string, opts Options) (*Store, error) {
	if strings.TrimSpace(dsn) == "" {
		return nil, fmt.Errorf("open database: empty DSN: %w", models.ErrInvalidInput)
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	slow := opts.SlowQuery
	if slow == 0 {
		slow = 200 * time.Millisecond
	}

	var (
		dialector gorm.Dialector
		dialect   string
		pool      poolConfig
		// prepare keeps each statement shape compiled per connection.
		// On PostgreSQL pgx already caches prepared statements by SQL
		// text, and gorm's cache would add a round trip per shape.
		prepare bool
	)
	if isPostgresDSN(dsn) {
		dialect = migrations.DialectPostgres
		config, err := pgx.ParseConfig(dsn)
		if err != nil {
			return nil, fmt.Errorf("open postgres database: %w: %w", models.ErrInvalidInput, err)
		}
		setSessionDefaults(config.RuntimeParams)
		dialector = postgres.New(postgres.Config{Conn: stdlib.OpenDB(*config, stdlib.OptionAfterConnect(scanTimestamptzInUTC))})
		pool = poolConfig{open: 10, lifetime: 30 * time.Minute, idleTime: 5 * time.Minute}
	} else {
		dialect = migrations.DialectSQLite
		liteDSN, memory, err := sqliteDSN(dsn, opts.BusyTimeout)
		if err != nil {
			return nil, err
		}
		conn, err := sqlite.NewConnector(liteDSN)
		if err != nil {
			return nil, fmt.Errorf("open sqlite database: %w", err)
		}
		dialector = sqliteDialector{db: sql.OpenDB(conn)}
		prepare = true
		pool = poolConfig{open: 4}
		if memory {
			// Each connection to :memory: is its own empty database: keep
			// exactly one, forever.
			pool = poolConfig{open: 1, idle: 1, fixed: true}
		}
	}
	if opts.MaxOpenConns > 0 && !pool.fixed {
		pool.open = opts.MaxOpenConns
	}
	if opts.MaxIdleConns > 0 && !pool.fixed {
		pool.idle = opts.MaxIdleConns
	}
	if opts.ConnMaxLifetime > 0 && dialect == migrations.DialectPostgres {
		pool.lifetime = opts.ConnMaxLifetime
	}
	if opts.ConnMaxIdleTime > 0 && dialect == migrations.DialectPostgres {
		pool.idleTime = opts.ConnMaxIdleTime
	}

	db, err := gorm.Open(dialector, &gorm.Config{
		TranslateError:         true,
		SkipDefaultTransaction: true,
		// A model's reads name its columns rather than SELECT *: columns
		// the models do not map (the search text's lower-cased twins,
		// migration 20261208010000) are not sent, and a column a newer
		// migration adds does not change the result of a statement this
		// instance has prepared (PostgreSQL refuses to run such a
		// statement: "cached plan must not change result type").
		QueryFields:          true,
		DisableAutomaticPing: true,
		PrepareStmt:          prepare,
		// Bounded: IN lists of every length are shapes of their own.
		PrepareStmtMaxSize: 256,
		Logger:             &gormLogger{log: log, slow: slow},
		NowFunc:            func() time.Time { return now().UTC().Truncate(time.Microsecond) },
	})
	if err != nil {
		return nil, fmt.Errorf("open %s database: %w", dialect, err)
	}
	limits := &deadlines{
		statement: orDefault(opts.StatementTimeout, DefaultStatementTimeout),
		acquire:   orDefault(opts.AcquireTimeout, DefaultAcquireTimeout),
		outage:    &outageLog{log: log, interval: orDefault(opts.OutageLogInterval, DefaultOutageLogInterval), now: time.Now},
	}
	if err := limits.register(db); err != nil {
		return nil, fmt.Errorf("open %s database: %w", dialect, err)
	}
	views := &issueViewSlot{}
	s := newStore(&core{db: db, dialect: dialect, now: now, log: log, limits: limits, views: views,
		identityStmt: &lazyStmt{query: identityVersionQuery}, repos: opts.Repositories,
		issueView:   newIssueViewStmts(dialect),
		viewSeqStmt: &lazyStmt{query: viewSeqQuery}, viewMarksStmt: &lazyStmt{query: viewMarksQuery}})
	sqlDB, err := db.DB()
	if err != nil {
		return nil, fmt.Errorf("open %s database: %w", dialect, err)
	}
	if err := registerUTCTimes(db); err != nil {
		sqlDB.Close()
		return nil, fmt.Errorf("open %s database: %w", dialect, err)
	}
	pool.apply(sqlDB)
	if err := s.Ping(ctx); err != nil {
		sqlDB.Close()
		return nil, err
	}
	return s, nil
}

// orDefault returns d for zero, 0 (off) for a negative v, and v otherwise.
func orDefault(v, d time.Duration) time.Duration {
	switch {
	case v == 0:
		return d
	case v < 0:
		return 0
	}
	return v
}

// Dialect returns "postgres" or "sqlite" (the migrations.Dialect* names).
func (s *Store) Dialect() string { return s.dialect }

// DB returns the gorm handle. It is for this package's files (and its
// tests); services go through Store's methods.
func (s *Store) DB() *gorm.DB { return s.db }

// SQLDB returns the underlying database/sql pool (for migrations, health
// checks and LISTEN connections). Closing it closes the Store.
func (s *Store) SQLDB() (*sql.DB, error) {
	sqlDB, err := s.db.DB()
	if err != nil {
		return nil, fmt.Errorf("database handle: %w", err)
	}
	return sqlDB, nil
}

// Ping checks that the database answers.
func (s *Store) Ping(ctx context.Context) error {
	sqlDB, err := s.SQLDB()
	if err != nil {
		return err
	}
	if err := sqlDB.PingContext(ctx); err != nil {
		return fmt.Errorf("ping %s database: %w", s.dialect, err)
	}
	return nil
}

// Close closes the connection pool. Inside WithTx it does nothing.
func (s *Store) Close() error {
	sqlDB, err := s.db.DB()
	if err != nil {
		// A transaction handle has no pool of its own.
		return nil
	}
	return sqlDB.Close()
}

// Migrate applies the embedded migrations not yet applied (see package
// migrations). It logs the versions at INFO when it changed the schema.
func (s *Store) Migrate(ctx context.Context) error {
	sqlDB, err := s.SQLDB()
	if err != nil {
		return err
	}
	before, err := migrations.Version(ctx, sqlDB, s.dialect)
	if err != nil {
		return err
	}
	if err := migrations.Up(ctx, sqlDB, s.dialect); err != nil {
		return err
	}
	after, err := migrations.Version(ctx, sqlDB, s.dialect)
	if err != nil {
		return err
	}
	if after != before {
		s.log.InfoContext(ctx, "database migrated", "dialect", s.dialect, "from_version", before, "to_version", after)
	}
	return nil
}

// SchemaVersion returns the migration version the database is at.
func (s *Store) SchemaVersion(ctx context.Context) (int64, error) {
	sqlDB, err := s.SQLDB()
	if err != nil {
		return 0, err
	}
	return migrations.Version(ctx, sqlDB, s.dialect)
}

// WithTx runs fn in a database transaction: it commits when fn returns nil
// and rolls back when fn returns an error (returned unchanged) or panics.
// fn must use tx, not s, for every statement that belongs to the
// transaction. A WithTx inside fn opens a savepoint.
func (s *Store) WithTx(ctx context.Context, fn func(tx *Store) error) error {
	var fnErr error
	_, nested := s.db.Statement.ConnPool.(gorm.TxCommitter)
	// views: the transaction's issue view invalidations; a savepoint's
	// count as the outer transaction's.
	views := s.viewTx
	if !nested {
		views = &viewChanges{}
	}
	run := func(db *gorm.DB) error {
		return db.Transaction(func(gtx *gorm.DB) error {
			tx := s.with(gtx)
			tx.viewTx = views
			fnErr = fn(tx)
			return fnErr
		})
	}
	var err error
	if nested {
		err = run(s.db.WithContext(ctx)) // a savepoint on the transaction's connection
	} else {
		err = s.limits.acquireConn(ctx, s.db, run)
		// Committed (or not; a failed COMMIT may have): what this
		// instance reads next reflects it.
		views.apply(s.views)
	}
	switch {
	case err == nil:
		return nil
	case fnErr != nil && errors.Is(err, fnErr):
		return fnErr
	default:
		return fmt.Errorf("transaction: %w", translate(err))
	}
}

// with returns a Store that runs its statements on db (a transaction).
func (s *Store) with(db *gorm.DB) *Store {
	c := *s.core
	c.db = db
	return newStore(&c)
}

// At returns a Store whose clock reads t: what it writes is stamped t
// (imports and the demo world record when things happened).
func (s *Store) At(t time.Time) *Store {
	c := *s.core
	c.now = func() time.Time { return t }
	return newStore(&c)
}

// Now is the store's clock (UTC, microseconds), for callers that stamp
// rows they build themselves.
func (s *Store) Now() time.Time { return s.clock() }

// conn returns the handle a method runs its statements on.
func (s *core) conn(ctx context.Context) *gorm.DB { return s.db.WithContext(ctx) }

// clock returns the current time as stored: UTC, microseconds.
func (s *core) clock() time.Time { return s.now().UTC().Truncate(time.Microsecond) }

// scanTimestamptzInUTC makes pgx return timestamptz values in UTC rather
// than the process's local zone, as SQLite returns them.
func scanTimestamptzInUTC(_ context.Context, conn *pgx.Conn) error {
	conn.TypeMap().RegisterType(&pgtype.Type{
		Name: "timestamptz", OID: pgtype.TimestamptzOID,
		Codec: &pgtype.TimestamptzCodec{ScanLocation: time.UTC},
	})
	return nil
}

// sessionDefaults are the settings every glmcp session on PostgreSQL
// starts with (sent in the startup message, no extra round trip); a DSN
// that names one keeps its own value.
//
//   - jit off: glmcp's statements are short OLTP queries; the JIT compiler
//     fires on cost estimates (a search over a large table) and adds
//     hundreds of milliseconds of compilation to a query that runs in a few.
//   - plan_cache_mode force_custom_plan: pgx prepares each statement once
//     per connection; after five runs PostgreSQL may switch a prepared
//     statement to a generic plan chosen without the parameters, so that a
//     plan fit for the largest project (or a rare search term) is reused
//     for the smallest (or a common one). Planning each run with its
//     parameters costs well under a millisecond.
//   - random_page_cost 1.1: the default (4) prices a page read at random
//     as a disk seek. glmcp's tables live in memory or on SSDs, where it
//     costs little more than a page read in sequence; at 4 the planner
//     scanned a 5,000-row merge request table matching ILIKE on every
//     description (128 ms) rather than read the 112 rows the trigram index
//     named (EXPLAIN in doc/performance.md, "Planner costs"). The value is
//     what PostgreSQL's documentation suggests for SSDs.
var sessionDefaults = map[string]string{
	"jit":              "off",
	"plan_cache_mode":  "force_custom_plan",
	"random_page_cost": "1.1",
}

func setSessionDefaults(params map[string]string) {
	for k, v := range sessionDefaults {
		if _, ok := params[k]; !ok {
			params[k] = v
		}
	}
}

func isPostgresDSN(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

// sqliteDSN turns a path or file: URI into the driver's DSN with glmcp's
// pragmas, and reports whether the database lives in memory.
func sqliteDSN(dsn string, busy time.Duration) (string, bool, error) {
	if busy <= 0 {
		busy = 10 * time.Second
	}
	memory := dsn == ":memory:" || strings.Contains(dsn, "mode=memory")
	if !memory && !strings.HasPrefix(dsn, "file:") {
		if dir := filepath.Dir(dsn); dir != "." {
			if err := os.MkdirAll(dir, 0o750); err != nil {
				return "", false, fmt.Errorf("open sqlite database: create directory: %w", err)
			}
		}
	}
	q := url.Values{}
	// busy_timeout first, so that switching to WAL waits for a lock too.
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busy.Milliseconds()))
	q.Add("_pragma", "foreign_keys(1)")
	if !memory {
		q.Add("_pragma", "journal_mode(WAL)")
		q.Add("_pragma", "synchronous(NORMAL)")
	}
	q.Set("_txlock", "immediate")
	// Times as text in one format (the one glebarez's driver wrote, so
	// databases created before the driver change read the same).
	q.Set("_time_format", "sqlite")
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	return dsn + sep + q.Encode(), memory, nil
}

type poolConfig struct {
	open, idle         int
	lifetime, idleTime time.Duration
	fixed              bool
}

func (p poolConfig) apply(db *sql.DB) {
	idle := p.idle
	if idle == 0 {
		idle = p.open
	}
	db.SetMaxOpenConns(p.open)
	db.SetMaxIdleConns(idle)
	db.SetConnMaxLifetime(p.lifetime)
	db.SetConnMaxIdleTime(p.idleTime)
}
