package store

import (
	"context"
	"database/sql"

	"github.com/memctl/memctl/internal/project"
)

// ThreadProject is the project part of a thread row, with what computes it.
type ThreadProject struct {
	ID           string
	Cwd          string
	GitOriginURL string
	Key          string
	Name         string
	Root         string
	Rules        string
}

// ThreadProjects returns the project columns of the threads whose project
// was computed under other rules than rules (never computed: ”), by id
// order; with rules empty, of every thread. An imported memory's thread
// keeps the key its own machine computed (docs/sync.md): it is never
// returned for re-keying.
func (s *Store) ThreadProjects(ctx context.Context, rules string) ([]ThreadProject, error) {
	return s.threadProjects(ctx, `WHERE ? = '' OR (project_rules <> ? AND source_kind <> '`+SourceImported+`')`, rules, rules)
}

// WeakThreadProjects returns the project columns of the threads keyed
// under rules by a folder path or a root commit while their folder was
// there (project_root set), by id order: the keys a scan upgrades when the
// folder has since become a repository or got a remote
// (project.Resolver.Upgrade).
func (s *Store) WeakThreadProjects(ctx context.Context, rules string) ([]ThreadProject, error) {
	return s.threadProjects(ctx, `WHERE project_rules = ? AND project_root <> '' AND cwd <> '' AND source_kind <> '`+SourceImported+`'
  AND (project_key >= 'path:' AND project_key < 'path;' OR project_key >= 'git-root:' AND project_key < 'git-root;')`, rules)
}

func (s *Store) threadProjects(ctx context.Context, where string, args ...any) ([]ThreadProject, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, cwd, git_origin_url, project_key, project_name, project_root, project_rules
FROM threads `+where+` ORDER BY id`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []ThreadProject
	for rows.Next() {
		var p ThreadProject
		if err := rows.Scan(&p.ID, &p.Cwd, &p.GitOriginURL, &p.Key, &p.Name, &p.Root, &p.Rules); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// SetThreadProjects writes the project columns of the given threads in one
// transaction. A thread whose selected raw memory changes project re-queues
// Phase 2 with a consolidation request, which the cooldown yields to as it
// does to a pin or a forget: the project layer follows at the next run, not
// six hours later, and a re-key is rare (a [[projects]] edit, a repository
// that got its first commit or a remote).
func (s *Store) SetThreadProjects(ctx context.Context, ps []ThreadProject) error {
	if len(ps) == 0 {
		return nil
	}
	return s.tx(ctx, func(tx *sql.Tx) error {
		requeue := false
		rootKeys := map[string]bool{}
		for _, p := range ps {
			// The one kind of key whose threads may carry several folder names.
			if project.IsRootKey(p.Key) {
				rootKeys[p.Key] = true
			}
			res, err := tx.ExecContext(ctx, `UPDATE threads SET project_key = ?, project_name = ?, project_root = ?, project_rules = ?
WHERE id = ? AND (project_key <> ? OR project_name <> ? OR project_root <> ? OR project_rules <> ?)`,
				p.Key, p.Name, p.Root, p.Rules, p.ID, p.Key, p.Name, p.Root, p.Rules)
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n > 0 && !requeue {
				var sel int
				err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM stage1_outputs WHERE thread_id = ? AND selected_for_phase2 <> 0`, p.ID).Scan(&sel)
				if err != nil {
					return err
				}
				requeue = sel > 0
			}
		}
		for key := range rootKeys {
			if err := unifyProjectName(ctx, tx, key); err != nil {
				return err
			}
		}
		if requeue {
			now := s.now().Unix()
			// One open request says it, however many scans re-keyed.
			_, err := tx.ExecContext(ctx, `INSERT INTO consolidation_requests (reason, regenerate, requested_at)
SELECT ?, 0, ? WHERE NOT EXISTS (SELECT 1 FROM consolidation_requests WHERE reason = ?)`, rekeyRequest, now, rekeyRequest)
			if err != nil {
				return err
			}
			return enqueueGlobalTx(ctx, tx, now)
		}
		return nil
	})
}

// unifyProjectName gives every thread of a root-commit key the name of
// the newest thread keyed while its folder was there. That key outlives a
// move or a rename, and each thread was named after the folder it ran in,
// so a repository renamed from tool to tool-renamed was listed under both
// names by status, threads and search. The name is for people and moves
// no memory, so no consolidation is requested for it.
func unifyProjectName(ctx context.Context, tx *sql.Tx, key string) error {
	_, err := tx.ExecContext(ctx, `UPDATE threads SET project_name = newest.name
FROM (SELECT project_name AS name FROM threads
      WHERE project_key = ? AND project_root <> '' ORDER BY updated_at_ms DESC, id DESC LIMIT 1) AS newest
WHERE threads.project_key = ? AND threads.project_name <> newest.name`, key, key)
	return err
}

// rekeyRequest is the consolidation request a re-key records.
const rekeyRequest = "threads moved to another project"

// ProjectCount is how much one project holds.
type ProjectCount struct {
	Key         string `json:"key"`
	Name        string `json:"name"`
	Threads     int    `json:"threads"`
	RawMemories int    `json:"raw_memories"`
}

// ProjectCounts counts threads and raw memories per project, the project
// with the most raw memories first ("" is the key of threads not yet keyed
// or with no working directory).
func (s *Store) ProjectCounts(ctx context.Context) ([]ProjectCount, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT t.project_key, MAX(t.project_name), COUNT(*), COUNT(o.thread_id)
FROM threads t LEFT JOIN stage1_outputs o ON o.thread_id = t.id
GROUP BY t.project_key ORDER BY COUNT(o.thread_id) DESC, COUNT(*) DESC, t.project_key`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []ProjectCount{}
	for rows.Next() {
		var c ProjectCount
		if err := rows.Scan(&c.Key, &c.Name, &c.Threads, &c.RawMemories); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// ProjectOfThreads maps thread ids to their project keys (unknown ids are
// left out).
func (s *Store) ProjectOfThreads(ctx context.Context, ids []string) (map[string]string, error) {
	out := map[string]string{}
	for _, id := range ids {
		var key string
		err := s.db.QueryRowContext(ctx, `SELECT project_key FROM threads WHERE id = ?`, id).Scan(&key)
		if err == sql.ErrNoRows {
			continue
		}
		if err != nil {
			return nil, err
		}
		out[id] = key
	}
	return out, nil
}
