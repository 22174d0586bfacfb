/* team.h — a parallel loop whose helpers join while it runs.
 *
 * One thread, the owner, runs a sequence of loops team_for(t, n, fn, arg): items 0 .. n-1,
 * each taken once, in any order, by the owner or by a member (a thread inside team_join).
 * team_for returns when every item is done, so the owner's code between loops is serial and
 * sees all their writes. Members are optional and come late: the owner never waits for one to
 * arrive, only for the items taken to finish; a member that arrives after team_close returns at
 * once. So the result is the same whoever ran which item, provided fn(arg, i) writes data of
 * item i alone.
 *
 * Lifetime: team_new(members) gives refs for the owner and that many members; each calls
 * team_release once (the owner after team_close, a member after team_join); the last frees it.
 * One mutex and two conditions: items are coarse (a block of matrix rows, milliseconds), so
 * their cost is nothing beside the work, and members waiting between loops sleep.
 * Plain pthreads: nothing here knows who runs the members (a StarPU task, a pthread).
 */
#ifndef EXTFLOW_TEAM_H
#define EXTFLOW_TEAM_H
#include <stdint.h>

typedef struct team team;

/* A team for an owner and up to `members` members; NULL when out of memory. */
team *team_new(uint32_t members);
/* The owner: items 0 .. n-1 of fn, with whoever has joined; returns when all are done. */
void team_for(team *t, uint32_t n, void (*fn)(void *arg, uint32_t item), void *arg);
/* A member: runs items of the owner's loops until team_close; returns how many it ran. */
uint64_t team_join(team *t);
/* The owner: no more loops; members leave (or, not yet arrived, never start). */
void team_close(team *t);
void team_release(team *t);
/* The owner's end: team_close, then team_release; NULL is fine. */
void team_end(team *t);
/* Items done by members (not the owner) so far: to test and to measure that they helped. */
uint64_t team_member_items(team *t);

/* Owner plus n - 1 pthreads as members, for a caller outside any runner (tests, benches):
 * team_with_threads(n) starts them on the process's CPUs (not the caller's, which may be bound
 * to one core) and returns the team (NULL: none could start; compute alone); team_stop_threads
 * closes it, joins the threads and releases it. */
team *team_with_threads(uint32_t n);
void team_stop_threads(team *t);

#endif
