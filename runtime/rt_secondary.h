/* rt_secondary.h — d2 (stages/secondary.h) and secondary products on StarPU: one cl_composite task per bidegree whose
 * composites some homotopy step reads (independent tasks, largest degrees first), then the
 * homotopy's lift DAG (runtime/rt_lift.h). StarPU must be started (rt_init). */
#ifndef EXTFLOW_RT_SECONDARY_H
#define EXTFLOW_RT_SECONDARY_H
#include "stages/secondary.h"
#include "stages/secondary_product.h"

/* 0, or -1 (sec->error or sec->set.error says why). */
int rt_secondary(secondary *sec);
/* A secondary product (stages/secondary_product.h) after rt_secondary: the class's lift, its
 * composites as cl_composite tasks, then H's lift DAG. 0, or -1 (p->error, or the lift sets'
 * error, says why). */
int rt_secondary_product(sec_product *p);

#endif
