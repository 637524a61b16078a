package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"
	"time"
)

// Thread is one row of the threads table.
type Thread struct {
	ID                  string    `json:"id"`
	SourceKind          string    `json:"source_kind"`
	Path                string    `json:"path"`
	Related             []string  `json:"related_paths,omitempty"`
	Source              string    `json:"source"`
	Interactive         bool      `json:"interactive"`
	Subagent            bool      `json:"subagent"`
	ParentID            string    `json:"parent_id,omitempty"`
	Cwd                 string    `json:"cwd"`
	GitBranch           string    `json:"git_branch,omitempty"`
	GitOriginURL        string    `json:"git_origin_url,omitempty"`
	GitSHA              string    `json:"git_sha,omitempty"`
	Preview             string    `json:"preview"`
	Model               string    `json:"model,omitempty"`
	CreatedAt           time.Time `json:"created_at"`
	UpdatedAt           time.Time `json:"updated_at"`
	Archived            bool      `json:"archived"`
	MemoryMode          string    `json:"memory_mode"`
	ModeSetByUser       bool      `json:"mode_set_by_user"`
	UsedExternalContext bool      `json:"used_external_context"`
	FileSize            int64     `json:"file_size"`
	FileMtimeNs         int64     `json:"-"`
	Fingerprint         string    `json:"-"`
	Problems            int       `json:"problems"`
	// The project the scan computed (internal/project): a stable key, a name
	// for people, the checkout's top folder, and the fingerprint of the
	// rules that computed it.
	ProjectKey   string `json:"project_key"`
	ProjectName  string `json:"project"`
	ProjectRoot  string `json:"project_root,omitempty"`
	ProjectRules string `json:"-"`
}

// FileState is what an incremental scan compares before reading a file again.
type FileState struct {
	ID          string
	Size        int64
	MtimeNs     int64
	Fingerprint string
}

// FileStates returns the recorded state of every indexed main transcript, by path.
func (s *Store) FileStates(ctx context.Context) (map[string]FileState, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT rollout_path, id, file_size, file_mtime_ns, fingerprint FROM threads`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]FileState{}
	for rows.Next() {
		var p string
		var st FileState
		if err := rows.Scan(&p, &st.ID, &st.Size, &st.MtimeNs, &st.Fingerprint); err != nil {
			return nil, err
		}
		out[p] = st
	}
	return out, rows.Err()
}

// UpsertResult says what UpsertThread did.
type UpsertResult int

// Upsert outcomes.
const (
	Inserted UpsertResult = iota
	Updated
)

// UpsertPolicy carries the config that decides a new thread's memory mode.
type UpsertPolicy struct {
	// GenerateMemories false stores new threads as disabled (Codex's generate_memories).
	GenerateMemories bool
	// DisableOnExternalContext marks threads that used external context polluted.
	DisableOnExternalContext bool
}

// UpsertThread inserts or refreshes a thread from a scan. A mode the user
// set with `threads enable|disable|forget` is kept, and so is the project
// when t carries none (ProjectRules empty): the scan computes projects in a
// pass of its own, and a folder that has since moved away must not cost a
// thread the key learnt while it was there. A thread that becomes
// polluted while its output is in the last baseline re-queues Phase 2.
func (s *Store) UpsertThread(ctx context.Context, t Thread, policy UpsertPolicy) (UpsertResult, error) {
	related, _ := json.Marshal(nonNil(t.Related))
	var result UpsertResult
	err := s.tx(ctx, func(tx *sql.Tx) error {
		var oldMode string
		var byUser bool
		err := tx.QueryRowContext(ctx, `SELECT memory_mode, mode_set_by_user FROM threads WHERE id = ?`, t.ID).Scan(&oldMode, &byUser)
		exists := err == nil
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		mode := t.MemoryMode
		switch {
		case exists && byUser:
			mode = oldMode
		case mode == "" && exists:
			// A polluted thread stays polluted, as in Codex, even when the
			// setting is later switched off; `threads enable` lifts it.
			mode = oldMode
		case mode == "" && !policy.GenerateMemories:
			mode = "disabled"
		case mode == "":
			mode = "enabled"
		}
		if mode == "enabled" && policy.DisableOnExternalContext && t.UsedExternalContext && !byUser {
			mode = "polluted"
		}
		_, err = tx.ExecContext(ctx, `
INSERT INTO threads (id, source_kind, rollout_path, related_paths, source, interactive, subagent, parent_id, cwd,
    git_branch, git_origin_url, git_sha, preview, model, created_at_ms, updated_at_ms, archived, memory_mode,
    used_external_context, file_size, file_mtime_ns, fingerprint, problems, scanned_at,
    project_key, project_name, project_root, project_rules)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (id) DO UPDATE SET
    source_kind = excluded.source_kind, rollout_path = excluded.rollout_path, related_paths = excluded.related_paths,
    source = excluded.source, interactive = excluded.interactive, subagent = excluded.subagent,
    parent_id = excluded.parent_id, cwd = excluded.cwd, git_branch = excluded.git_branch,
    git_origin_url = excluded.git_origin_url, git_sha = excluded.git_sha, preview = excluded.preview,
    model = excluded.model, created_at_ms = excluded.created_at_ms, updated_at_ms = excluded.updated_at_ms,
    archived = excluded.archived, memory_mode = excluded.memory_mode,
    used_external_context = excluded.used_external_context, file_size = excluded.file_size,
    file_mtime_ns = excluded.file_mtime_ns, fingerprint = excluded.fingerprint, problems = excluded.problems,
    scanned_at = excluded.scanned_at,
    project_key = CASE WHEN excluded.project_rules = '' THEN project_key ELSE excluded.project_key END,
    project_name = CASE WHEN excluded.project_rules = '' THEN project_name ELSE excluded.project_name END,
    project_root = CASE WHEN excluded.project_rules = '' THEN project_root ELSE excluded.project_root END,
    project_rules = CASE WHEN excluded.project_rules = '' THEN project_rules ELSE excluded.project_rules END`,
			t.ID, t.SourceKind, t.Path, string(related), t.Source, t.Interactive, t.Subagent, t.ParentID, t.Cwd,
			t.GitBranch, t.GitOriginURL, t.GitSHA, t.Preview, t.Model, t.CreatedAt.UnixMilli(), t.UpdatedAt.UnixMilli(),
			t.Archived, mode, t.UsedExternalContext, t.FileSize, t.FileMtimeNs, t.Fingerprint, t.Problems, s.now().Unix(),
			t.ProjectKey, t.ProjectName, t.ProjectRoot, t.ProjectRules)
		if err != nil {
			return err
		}
		if exists {
			result = Updated
		} else {
			result = Inserted
		}
		if mode != "enabled" && oldMode != mode {
			return requeueIfSelectedTx(ctx, tx, t.ID, s.now().Unix())
		}
		return nil
	})
	return result, err
}

// TouchFile records a new size/mtime for a file whose content fingerprint
// did not change (a copy or a touch), so the next scan skips it cheaply.
func (s *Store) TouchFile(ctx context.Context, id string, size, mtimeNs int64) error {
	_, err := s.exec(ctx, `UPDATE threads SET file_size = ?, file_mtime_ns = ? WHERE id = ?`, size, mtimeNs, id)
	return err
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func requeueIfSelectedTx(ctx context.Context, tx *sql.Tx, threadID string, now int64) error {
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM stage1_outputs WHERE thread_id = ? AND selected_for_phase2 <> 0`, threadID).Scan(&n); err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	return enqueueGlobalTx(ctx, tx, now)
}

const threadColumns = `id, source_kind, rollout_path, related_paths, source, interactive, subagent, parent_id, cwd,
    git_branch, git_origin_url, git_sha, preview, model, created_at_ms, updated_at_ms, archived, memory_mode,
    mode_set_by_user, used_external_context, file_size, file_mtime_ns, fingerprint, problems,
    project_key, project_name, project_root, project_rules`

type scanner interface{ Scan(dest ...any) error }

// scanThread reads a row of threadColumns, then into extra the columns a
// query selects after them.
func scanThread(r scanner, extra ...any) (Thread, error) {
	var t Thread
	var related string
	var created, updated int64
	err := r.Scan(append([]any{&t.ID, &t.SourceKind, &t.Path, &related, &t.Source, &t.Interactive, &t.Subagent, &t.ParentID, &t.Cwd,
		&t.GitBranch, &t.GitOriginURL, &t.GitSHA, &t.Preview, &t.Model, &created, &updated, &t.Archived, &t.MemoryMode,
		&t.ModeSetByUser, &t.UsedExternalContext, &t.FileSize, &t.FileMtimeNs, &t.Fingerprint, &t.Problems,
		&t.ProjectKey, &t.ProjectName, &t.ProjectRoot, &t.ProjectRules}, extra...)...)
	if err != nil {
		return t, err
	}
	_ = json.Unmarshal([]byte(related), &t.Related)
	t.CreatedAt = time.UnixMilli(created).UTC()
	t.UpdatedAt = time.UnixMilli(updated).UTC()
	return t, nil
}

// Thread returns one thread by id, or by a unique id prefix of at least
// MinIDPrefix characters. It returns ErrNotFound when nothing matches (a
// shorter prefix matches nothing) and an *AmbiguousError when several do.
func (s *Store) Thread(ctx context.Context, id string) (Thread, error) {
	t, err := scanThread(s.db.QueryRowContext(ctx, `SELECT `+threadColumns+` FROM threads WHERE id = ?`, id))
	if err == nil {
		return t, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return t, err
	}
	if len(id) < MinIDPrefix {
		return Thread{}, ErrNotFound
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+threadColumns+` FROM threads WHERE id LIKE ? ESCAPE '\' ORDER BY id LIMIT 11`, likePrefix(id))
	if err != nil {
		return Thread{}, err
	}
	defer rows.Close()
	var found []Thread
	for rows.Next() {
		t, err := scanThread(rows)
		if err != nil {
			return Thread{}, err
		}
		found = append(found, t)
	}
	if err := rows.Err(); err != nil {
		return Thread{}, err
	}
	switch len(found) {
	case 0:
		return Thread{}, ErrNotFound
	case 1:
		return found[0], nil
	}
	amb := &AmbiguousError{Prefix: id}
	for _, t := range found[:min(len(found), 10)] {
		amb.Candidates = append(amb.Candidates, t.ID)
	}
	return Thread{}, amb
}

func likePrefix(p string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return r.Replace(p) + "%"
}

// ThreadFilter narrows ListThreads.
type ThreadFilter struct {
	Limit int // 0 = all
	// ProjectKey keeps the threads of one project ("" = every project).
	ProjectKey string
}

// ThreadWithMemory is a thread and whether it has a stored raw memory.
type ThreadWithMemory struct {
	Thread
	HasMemory bool `json:"has_memory"`
}

// ListThreads lists threads, most recently updated first.
func (s *Store) ListThreads(ctx context.Context, f ThreadFilter) ([]ThreadWithMemory, error) {
	q := `SELECT ` + threadColumns + `, EXISTS (SELECT 1 FROM stage1_outputs o WHERE o.thread_id = threads.id)
FROM threads`
	var args []any
	if f.ProjectKey != "" {
		q += ` WHERE project_key = ?`
		args = append(args, f.ProjectKey)
	}
	q += ` ORDER BY updated_at_ms DESC, id DESC`
	if f.Limit > 0 {
		q += ` LIMIT ` + itoa(f.Limit)
	}
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []ThreadWithMemory
	for rows.Next() {
		var hasMemory bool
		t, err := scanThread(rows, &hasMemory)
		if err != nil {
			return nil, err
		}
		out = append(out, ThreadWithMemory{Thread: t, HasMemory: hasMemory})
	}
	return out, rows.Err()
}

// SetMemoryMode sets a thread's memory mode on the user's behalf (a rescan
// keeps it). Disabling or polluting a thread whose output is in the last
// baseline re-queues Phase 2 so consolidation forgets it.
func (s *Store) SetMemoryMode(ctx context.Context, id, mode string) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE threads SET memory_mode = ?, mode_set_by_user = 1 WHERE id = ?`, mode, id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		if mode != "enabled" {
			return requeueIfSelectedTx(ctx, tx, id, s.now().Unix())
		}
		return nil
	})
}

// ForgetThread disables a thread and forgets its raw memory (see
// ForgetMemory): the memory, its Phase 1 job and its search documents are
// deleted and the next consolidation regenerates the folder without it.
func (s *Store) ForgetThread(ctx context.Context, id string) error {
	err := s.tx(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM threads WHERE id = ?`, id).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			return ErrNotFound
		}
		return forgetTx(ctx, tx, id, s.now().Unix())
	})
	if err != nil {
		return err
	}
	return s.dropBackup()
}

// CandidateFilter is the Phase 1 claim query (Codex 6.1).
type CandidateFilter struct {
	MaxAgeDays      int
	MinIdleHours    int
	AllWindows      bool     // --all: ignore the age and idle windows
	InteractiveOnly bool     // Codex's interactive sources only
	ThreadIDs       []string // --thread: only these
	ExcludeID       string   // --current-thread
	// ExcludeCwdUnder drops threads whose cwd is one of these folders or
	// inside one: memctl's memory folders, where an agent consolidation
	// (`claude -p`, `codex exec`) runs and must not become memory itself.
	ExcludeCwdUnder []string
	// BacklogUntil, when set, is the first run's clock (Backlog.Until): a
	// thread updated at or before it is a past session that the windows
	// leave alone, as the first run took them.
	BacklogUntil time.Time
	Limit        int // scan limit; 0 is CandidateScanLimit
}

// CandidateScanLimit is how many candidates one claim looks at (Codex's
// 5,000), unless the filter asks for more.
const CandidateScanLimit = 5000

// Candidates lists threads eligible for Phase 1 (every CandidateRule
// holds), most recently updated first.
func (s *Store) Candidates(ctx context.Context, f CandidateFilter) ([]Thread, error) {
	where, args := candidateWhere(f, s.now())
	limit := f.Limit
	if limit <= 0 {
		limit = CandidateScanLimit
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+threadColumns+` FROM threads WHERE `+where+
		` ORDER BY updated_at_ms DESC, id DESC LIMIT `+itoa(limit), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Thread
	for rows.Next() {
		t, err := scanThread(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// UpToDate reports whether a thread version needs no extraction: an output
// or a successful job already covers sourceUpdatedAt (Codex 3.6 steps 1–2).
func (s *Store) UpToDate(ctx context.Context, threadID string, sourceUpdatedAt int64) (bool, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT
  (SELECT COUNT(*) FROM stage1_outputs WHERE thread_id = ? AND source_updated_at >= ?) +
  (SELECT COUNT(*) FROM jobs WHERE kind = ? AND job_key = ? AND last_success_watermark >= ?)`,
		threadID, sourceUpdatedAt, KindStage1, threadID, sourceUpdatedAt).Scan(&n)
	return n > 0, err
}
