/*
 * ir/model/value.c - values (SSA edges): naming, lookup, types, use lists.
 */
#include <inttypes.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include "model/internal.h"

int ir_array_push(void *arrp, size_t *count, size_t elem, const void *item)
{
	char **arr = arrp;
	size_t cap, want;
	char *n;

	/* Arrays may come sized exactly (the reader, calloc), so the
	 * capacity is what the allocator gave, not a field: grow
	 * geometrically when it is used up, so n pushes cost O(n). */
	if (*count >= SIZE_MAX / elem / 2 - 1)
		return -1;
	cap = *arr ? malloc_usable_size(*arr) / elem : 0;
	if (*count + 1 > cap) {
		want = *count < 4 ? 4 : *count * 2;
		n = realloc(*arr, want * elem);
		if (!n)
			return -1;
		*arr = n;
	}
	memcpy(*arr + *count * elem, item, elem);
	(*count)++;
	return 0;
}

/* hint_next entries: the key is the entry's own copy of the hint. */
struct hint_entry {
	uint64_t next;
	char key[];
};

char *ir_unique_name(qir_model *m, const ir_strmap *map, const char *hint)
{
	struct ir_model_priv *mp = QIR_MPRIV(m);
	struct hint_entry *e;
	size_t len, cap;
	uint64_t k;
	char *buf;

	if (!hint || !hint[0])
		hint = "v";
	if (!ir_strmap_get(map, hint))
		return strdup(hint);
	len = strlen(hint);
	cap = len + 24;
	buf = malloc(cap);
	if (!buf)
		return NULL;
	e = ir_strmap_get(&mp->hint_next, hint);
	for (k = e ? e->next : 1;; k++) {
		snprintf(buf, cap, "%s_%" PRIu64, hint, k);
		if (!ir_strmap_get(map, buf))
			break;
	}
	if (!e) {
		/* Without the entry the next call just scans from 1. */
		e = malloc(sizeof(*e) + len + 1);
		if (e) {
			memcpy(e->key, hint, len + 1);
			if (ir_strmap_put(&mp->hint_next, e->key, e) < 0) {
				free(e);
				e = NULL;
			}
		}
	}
	if (e)
		e->next = k + 1;
	return buf;
}

/* mp->names counts the values of each name: sibling subgraphs (the
 * branches of an If) may each define the same name, and a name stays
 * taken until its last value goes. The entry holds its own key. */
struct name_entry {
	size_t count;
	char key[];
};

static int name_ref(struct ir_model_priv *mp, const char *name)
{
	struct name_entry *e = ir_strmap_get(&mp->names, name);
	size_t len;

	if (e) {
		e->count++;
		return 0;
	}
	len = strlen(name);
	e = malloc(sizeof(*e) + len + 1);
	if (!e)
		return -1;
	e->count = 1;
	memcpy(e->key, name, len + 1);
	if (ir_strmap_put(&mp->names, e->key, e) < 0) {
		free(e);
		return -1;
	}
	return 0;
}

void ir_name_unref(struct ir_model_priv *mp, const char *name)
{
	struct name_entry *e = ir_strmap_get(&mp->names, name);

	if (e && --e->count == 0) {
		ir_strmap_del(&mp->names, name);
		free(e);
	}
}

void ir_names_free(struct ir_model_priv *mp)
{
	size_t it = 0;
	void *e;

	while (ir_strmap_next(&mp->names, &it, NULL, &e))
		free(e);
	ir_strmap_free(&mp->names);
}

/* Drops the holes ir_value_free left in gp->all, keeping creation
 * order; positions are renumbered. */
void ir_graph_compact_all(struct ir_graph_priv *gp)
{
	size_t i, k = 0;

	if (!gp->holes)
		return;
	for (i = 0; i < gp->nall; i++)
		if (gp->all[i]) {
			QIR_VPRIV(gp->all[i])->all_pos = k;
			gp->all[k++] = gp->all[i];
		}
	gp->nall = k;
	gp->holes = 0;
}

qir_value *ir_value_make(qir_graph *g, const char *name)
{
	struct ir_graph_priv *gp = QIR_GPRIV(g);
	struct ir_model_priv *mp = QIR_MPRIV(g->model);
	qir_value *v = calloc(1, sizeof(*v));

	if (!v)
		return NULL;
	v->priv = calloc(1, sizeof(struct ir_value_priv));
	v->name = strdup(name);
	if (!v->priv || !v->name)
		goto fail;
	if (gp->holes && gp->nall == gp->capall)
		ir_graph_compact_all(gp);
	if (gp->nall == gp->capall) {
		size_t cap = gp->capall ? gp->capall * 2 : 16;
		qir_value **a = realloc(gp->all, cap * sizeof(*a));

		if (!a)
			goto fail;
		gp->all = a;
		gp->capall = cap;
	}
	if (ir_strmap_put(&gp->values, v->name, v) < 0)
		goto fail;
	if (name_ref(mp, v->name) < 0) {
		ir_strmap_del(&gp->values, v->name);
		goto fail;
	}
	v->rank = -1;
	v->graph = g;
	QIR_VPRIV(v)->order = mp->value_order++;
	QIR_VPRIV(v)->all_pos = gp->nall;
	gp->all[gp->nall++] = v;
	return v;
fail:
	free(v->name);
	free(v->priv);
	free(v);
	return NULL;
}

qir_value *ir_value_get_or_make(qir_graph *g, const char *name)
{
	qir_value *v = ir_strmap_get(&QIR_GPRIV(g)->values, name);

	return v ? v : ir_value_make(g, name);
}

qir_value *qir_value_new(qir_graph *g, const char *hint)
{
	char *name = ir_unique_name(g->model, &QIR_MPRIV(g->model)->names,
				      hint);
	qir_value *v;

	if (!name)
		return NULL;
	v = ir_value_make(g, name);
	free(name);
	return v;
}

static void free_dims(qir_value *v)
{
	int i;

	for (i = 0; v->dims && i < v->rank; i++)
		free(v->dims[i].param);
	free(v->dims);
	v->dims = NULL;
}

/* Frees memory only; maps and lists are the caller's business. */
void ir_value_free_mem(qir_value *v)
{
	free_dims(v);
	qir_tensor_free(v->init);
	free(v->uses);
	free(v->name);
	free(v->priv);
	free(v);
}

void ir_value_free(qir_value *v)
{
	qir_graph *g = v->graph;
	struct ir_graph_priv *gp = QIR_GPRIV(g);
	struct ir_model_priv *mp = QIR_MPRIV(g->model);
	size_t i;

	if (ir_strmap_get(&gp->values, v->name) == v)
		ir_strmap_del(&gp->values, v->name);
	ir_name_unref(mp, v->name);
	/* A hole, not a memmove: freeing many values stays linear. The
	 * holes go when they are half the array, or when it is read.
	 * ir_value_make records every value's place; the scan is only a
	 * guard, so that a stale place can never leave v behind. */
	i = QIR_VPRIV(v)->all_pos;
	if (i >= gp->nall || gp->all[i] != v)
		for (i = 0; i < gp->nall && gp->all[i] != v; i++)
			;
	if (i < gp->nall) {
		gp->all[i] = NULL;
		gp->holes++;
		if (gp->holes * 2 > gp->nall)
			ir_graph_compact_all(gp);
	}
	ir_value_free_mem(v);
}

qir_value *qir_graph_find_value(qir_graph *g, const char *name)
{
	for (; g; g = g->parent) {
		qir_value *v = ir_strmap_get(&QIR_GPRIV(g)->values, name);

		if (v)
			return v;
	}
	return NULL;
}

int qir_value_set_type(qir_value *v, int dtype, int rank,
		       const int64_t *dims, qir_error *err)
{
	qir_dim *nd = NULL;
	int i;

	if (rank < -1 || (rank > 0 && !dims))
		return qir_fail(err, QIR_EUSAGE,
				"value '%s': bad shape (rank %d)", v->name, rank);
	if (dtype != QIR_UNDEFINED && !qir_dtype_name(dtype))
		return qir_fail(err, QIR_EUSAGE,
				"value '%s': unknown data type %d", v->name, dtype);
	if (rank > 0) {
		nd = calloc(rank, sizeof(*nd));
		if (!nd)
			return qir_fail(err, QIR_ENOMEM, "value '%s': out of memory",
					v->name);
		for (i = 0; i < rank; i++)
			nd[i].value = dims[i] >= 0 ? dims[i] : -1;
	}
	free_dims(v);
	v->dtype = dtype;
	v->rank = rank;
	v->dims = nd;
	QIR_VPRIV(v)->inferred = 0;
	QIR_VPRIV(v)->shape_inferred = 0;
	if (v->producer && !v->is_output)
		QIR_VPRIV(v)->in_value_info = 1;
	return 0;
}

int qir_value_copy_shape(qir_value *v, const qir_value *from, int dtype,
			 qir_error *err)
{
	qir_dim *nd = NULL;
	int i, rank = from->rank;

	if (dtype != QIR_UNDEFINED && !qir_dtype_name(dtype))
		return qir_fail(err, QIR_EUSAGE,
				"value '%s': unknown data type %d", v->name, dtype);
	if (rank > 0) {
		nd = calloc(rank, sizeof(*nd));
		if (!nd)
			goto nomem;
		for (i = 0; i < rank; i++) {
			nd[i].value = from->dims[i].value;
			if (from->dims[i].param &&
			    !(nd[i].param = strdup(from->dims[i].param)))
				goto nomem;
		}
	}
	free_dims(v);
	v->dtype = dtype;
	v->rank = rank < 0 ? -1 : rank;
	v->dims = nd;
	QIR_VPRIV(v)->inferred = 0;
	QIR_VPRIV(v)->shape_inferred = 0;
	if (v->producer && !v->is_output)
		QIR_VPRIV(v)->in_value_info = 1;
	return 0;
nomem:
	if (nd)
		for (i = 0; i < rank; i++)
			free(nd[i].param);
	free(nd);
	return qir_fail(err, QIR_ENOMEM, "value '%s': out of memory", v->name);
}

static int defines_name(qir_graph *g, void *name)
{
	return ir_strmap_get(&QIR_GPRIV(g)->values, name) != NULL;
}

/* Whether a value named name is visible from g or would be shadowed by
 * it: defined in g, an enclosing graph, or a graph nested in g. Values
 * of sibling scopes (the other branch of an If) do not count. */
static int name_taken_at(qir_graph *g, const char *name)
{
	if (!ir_strmap_get(&QIR_MPRIV(g->model)->names, name))
		return 0;
	if (qir_graph_find_value(g, name))
		return 1;
	return qir_graph_walk(g, defines_name, (void *)name) != 0;
}

int qir_value_rename(qir_value *v, const char *name, qir_error *err)
{
	struct ir_graph_priv *gp = QIR_GPRIV(v->graph);
	struct ir_model_priv *mp = QIR_MPRIV(v->graph->model);
	char *nn, *tn = NULL;

	if (!name || !name[0])
		return qir_fail(err, QIR_EUSAGE, "value '%s': empty new name",
				v->name);
	if (strcmp(name, v->name) == 0)
		return 0;
	if (name_taken_at(v->graph, name))
		return qir_fail(err, QIR_EUSAGE,
				"cannot rename value '%s' to '%s': name taken",
				v->name, name);
	nn = strdup(name);
	if (v->init)
		tn = strdup(name);
	if (!nn || (v->init && !tn)) {
		free(nn);
		free(tn);
		return qir_fail(err, QIR_ENOMEM, "value '%s': out of memory",
				v->name);
	}
	if (ir_strmap_put(&gp->values, nn, v) < 0 || name_ref(mp, nn) < 0) {
		if (ir_strmap_get(&gp->values, nn) == v)
			ir_strmap_del(&gp->values, nn);
		free(nn);
		free(tn);
		return qir_fail(err, QIR_ENOMEM, "value '%s': out of memory",
				v->name);
	}
	if (ir_strmap_get(&gp->values, v->name) == v)
		ir_strmap_del(&gp->values, v->name);
	ir_name_unref(mp, v->name);
	free(v->name);
	v->name = nn;
	if (v->init) {
		free(v->init->name);
		v->init->name = tn;
	}
	return 0;
}

int ir_use_add(qir_value *v, qir_node *n, int index)
{
	struct ir_value_priv *p = QIR_VPRIV(v);

	if (v->nuses == p->uses_cap) {
		size_t cap = p->uses_cap ? p->uses_cap * 2 : 4;
		qir_use *u = realloc(v->uses, cap * sizeof(*u));

		if (!u)
			return -1;
		v->uses = u;
		p->uses_cap = cap;
	}
	v->uses[v->nuses].node = n;
	v->uses[v->nuses].index = index;
	v->nuses++;
	return 0;
}

void ir_use_del(qir_value *v, qir_node *n, int index)
{
	size_t i;

	/* Ordered removal: passes iterate uses and expect stable order. */
	for (i = v->nuses; i-- > 0;) {
		if (v->uses[i].node == n && v->uses[i].index == index) {
			memmove(v->uses + i, v->uses + i + 1,
				(v->nuses - i - 1) * sizeof(*v->uses));
			v->nuses--;
			return;
		}
	}
}

static void replace_in_outputs(qir_graph *g, qir_value *from, qir_value *to)
{
	qir_node *n;
	size_t i, j;

	for (i = 0; i < g->noutputs; i++) {
		if (g->outputs[i] == from) {
			g->outputs[i] = to;
			if (from->is_output > 0)
				from->is_output--;
			to->is_output++;
		}
	}
	/* Subgraphs may list an outer value as their output. */
	qir_graph_for_each_node(g, n)
		for (i = 0; i < n->nattrs; i++) {
			qir_attr *a = &n->attrs[i];

			if (!from->is_output)
				return;
			if (a->type == QIR_ATTR_GRAPH && a->g)
				replace_in_outputs(a->g, from, to);
			for (j = 0; a->type == QIR_ATTR_GRAPHS && j < a->n; j++)
				replace_in_outputs(a->graphs[j], from, to);
		}
}

/* Room for extra more uses of v, so that moving uses onto it cannot
 * fail half-way. */
static int use_reserve(qir_value *v, size_t extra)
{
	struct ir_value_priv *p = QIR_VPRIV(v);
	qir_use *u;

	if (v->nuses + extra <= p->uses_cap)
		return 0;
	if (extra > SIZE_MAX / sizeof(*u) - v->nuses)
		return -1;
	u = realloc(v->uses, (v->nuses + extra) * sizeof(*u));
	if (!u)
		return -1;
	v->uses = u;
	p->uses_cap = v->nuses + extra;
	return 0;
}

int qir_value_replace_all_uses(qir_value *from, qir_value *to)
{
	if (from == to || !from || !to)
		return 0;
	if (use_reserve(to, from->nuses) < 0)
		return -1;
	while (from->nuses) {
		qir_use u = from->uses[0];

		/* Cannot fail: the slot exists and to has room. */
		if (qir_node_set_input(u.node, u.index, to) < 0)
			return -1;
	}
	if (from->is_output)
		replace_in_outputs(from->graph, from, to);
	return 0;
}

int qir_value_replace_use(qir_value *from, qir_use use, qir_value *to)
{
	if (use.node && use.index >= 0 && (size_t)use.index < use.node->ninputs &&
	    use.node->inputs[use.index] == from)
		return qir_node_set_input(use.node, use.index, to);
	return 0;
}

int qir_value_elem_type(qir_value *v)
{
	qir_tensor *t;

	if (!v)
		return QIR_UNDEFINED;
	if (v->dtype)
		return v->dtype;
	t = qir_value_const(v);
	return t ? t->dtype : QIR_UNDEFINED;
}
