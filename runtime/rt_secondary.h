/* rt_secondary.h — d2 (stages/secondary.h) on StarPU: one cl_composite task per bidegree whose
 * composites some homotopy step reads (independent tasks, largest degrees first), then the
 * homotopy's lift DAG (runtime/rt_lift.h). StarPU must be started (rt_init). */
#ifndef EXTFLOW_RT_SECONDARY_H
#define EXTFLOW_RT_SECONDARY_H
#include "stages/secondary.h"

/* 0, or -1 (sec->error or sec->set.error says why). */
int rt_secondary(secondary *sec);

#endif
