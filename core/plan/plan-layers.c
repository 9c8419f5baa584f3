/*
 * core/plan/plan-layers.c - the plan's candidate layers: the main
 * graph's MatMul, Gemm, Conv and ConvTranspose nodes with a constant
 * float weight as input 1, each selected by its name alone (plan.h).
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "plan/plan.h"

static int is_layer_op(const qir_node *n)
{
	static const char *const ops[] = { "MatMul", "Gemm", "Conv",
					   "ConvTranspose" };
	size_t i;

	if (*n->domain && strcmp(n->domain, "ai.onnx"))
		return 0;
	for (i = 0; i < sizeof(ops) / sizeof(*ops); i++)
		if (!strcmp(n->op_type, ops[i]))
			return 1;
	return 0;
}

/* The longest layer name the INI takes: "exclude = node=NAME" (or
 * "include = ...") on one line. */
#define NAME_MAX_BYTES (PLAN_INI_LINE_MAX - sizeof("exclude = " \
			PLAN_NODE_KEY) + 1)

/* The include item for name into *key (malloc'd): PLAN_NODE_KEY name,
 * which selects that node alone. 0; 1 with *why when the name is empty
 * or cannot stand in an INI list or an inline option (a list
 * separator, an inline comment, a quote, a backslash, a control byte,
 * blanks at an end, a line too long for the INI reader); -1 when out
 * of memory. */
static int layer_key(const char *name, char **key, const char **why)
{
	size_t n = strlen(name), i;

	*why = "it has no name, so no include list can name it alone";
	if (!n)
		return 1;
	*why = "its name cannot be written in an include list";
	if (n > NAME_MAX_BYTES || name[0] == ' ' || name[n - 1] == ' ' ||
	    strpbrk(name, ",;#\"\\"))
		return 1;
	for (i = 0; i < n; i++)
		if ((unsigned char)name[i] < 0x20 || name[i] == 0x7f)
			return 1;
	return asprintf(key, PLAN_NODE_KEY "%s", name) < 0 ? -1 : 0;
}

/* A constant weight: an initializer, or a Constant node's value (as
 * paddle2onnx exports them); NULL otherwise. */
static const qir_tensor *weight_of(const qir_value *w)
{
	const qir_attr *a;

	if (!w)
		return NULL;
	if (w->init)
		return w->init;
	if (!w->producer || strcmp(w->producer->op_type, "Constant") ||
	    *w->producer->domain)
		return NULL;
	a = qir_node_attr(w->producer, "value");
	return a ? a->t : NULL;
}

/* A layer kept out of the plan: float, counted as 16 bits, said. */
static void leave_out(struct plan *p, const qir_node *n, int64_t params,
		      const char *why)
{
	char shown[512];

	qir_escape_text(shown, sizeof(shown), n->name);
	qm_say(p->s, QOPT_LOG_WARN, "qopt plan: warning: layer '%s' (%s): "
	       "%s; it stays float and out of the plan (counted as 16 "
	       "bits)\n", shown, n->op_type, why);
	p->total_params += params;
	p->float_params += params;
}

static int add_layer(struct plan *p, qir_node *n, size_t *cap)
{
	qir_value *w = n->inputs[1];
	int64_t params = (int64_t)qir_tensor_numel(weight_of(w));
	struct plan_layer *l;
	const char *why;
	char *key = NULL;
	int k;

	/* node names are unique: ONNX Runtime, which measures, refuses
	 * a model where two nodes share one */
	k = layer_key(n->name, &key, &why);
	if (k) {
		if (k > 0)
			leave_out(p, n, params, why);
		return k > 0 ? 0 : -1;
	}
	if (p->nlayers == *cap) {
		struct plan_layer *g = realloc(p->layers, (*cap ? 2 * *cap : 16) *
					       sizeof(*g));
		if (!g) {
			free(key);
			return -1;
		}
		p->layers = g;
		*cap = *cap ? 2 * *cap : 16;
	}
	l = &p->layers[p->nlayers++];
	memset(l, 0, sizeof(*l));
	l->key = key;
	l->node = strdup(n->name);
	l->weight = strdup(w->name);
	l->op = strdup(n->op_type);
	if (!l->node || !l->weight || !l->op)
		return -1;
	l->params = params;
	for (k = 0; k < PF_COUNT; k++)
		l->cand[k] = -1;
	p->total_params += l->params;
	return 0;
}

/* Layers of the main graph with a constant float weight as input 1
 * (a weight behind a Transpose or a Cast is not a candidate). */
int plan_find_layers(struct plan *p, qir_model *m)
{
	size_t cap = 0;
	qir_node *n;

	qir_graph_for_each_node(m->graph, n) {
		const qir_tensor *w = n->ninputs > 1 ? weight_of(n->inputs[1]) :
				      NULL;

		if (!is_layer_op(n) || !w || !qir_dtype_is_float(w->dtype) ||
		    !n->noutputs)
			continue;
		if (add_layer(p, n, &cap) < 0) {
			qm_say(p->s, QOPT_LOG_ERROR, "qopt plan: error: out of "
			       "memory\n");
			return QM_FAIL;
		}
	}
	if (!p->nlayers && p->total_params) {
		qm_say(p->s, QOPT_LOG_ERROR, "qopt plan: %s: error: every "
		       "candidate layer is left out (the warnings above say "
		       "why): nothing to plan\n", p->input);
		return QM_FAIL;
	}
	if (!p->nlayers) {
		qm_say(p->s, QOPT_LOG_ERROR, "qopt plan: %s: error: no MatMul, "
		       "Gemm, Conv or ConvTranspose with a constant weight: "
		       "nothing to plan\n", p->input);
		return QM_FAIL;
	}
	return 0;
}
