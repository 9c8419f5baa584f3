/*
 * core/calib/calib-ort-refuse.c - the models qopt does not hand to ONNX Runtime
 * because ORT would never come back (calib-ort.h, calib_ort_refuse).
 *
 * ORT 1.30 spins for ever in `run` on a Conv over zero input channels
 * (weight [8,0,3,3], input [1,0,9,9]: measured at graph optimization
 * disabled and basic, the levels qopt's tools use). The rule refused is
 * wider than that one case and simple to say: a Conv or ConvTranspose
 * whose input or weight has a dimension of size 0 known in the model.
 * Such a layer computes nothing worth measuring, and a size that only
 * the samples make 0 is left to the bound on the run (calib-ort.c).
 */
#include "config.h"
#include <stdio.h>
#include <string.h>
#include "calib/calib-ort.h"

/* The axis of v known to be 0, or -1. */
static int zero_axis(const qir_value *v)
{
	int i;

	if (!v)
		return -1;
	if (v->init) {
		for (i = 0; i < v->init->rank; i++)
			if (v->init->dims[i] == 0)
				return i;
		return -1;
	}
	for (i = 0; i < v->rank; i++)
		if (v->dims[i].value == 0)
			return i;
	return -1;
}

static int is_conv(const qir_node *n)
{
	return (!n->domain[0] || !strcmp(n->domain, "ai.onnx")) &&
	       (!strcmp(n->op_type, "Conv") ||
		!strcmp(n->op_type, "ConvTranspose"));
}

static int refuse_node(qm_session *s, const char *who, const qir_node *n)
{
	char node[512], tensor[512];
	size_t k;
	int ax;

	for (k = 0; k < n->ninputs && k < 2; k++) {
		ax = zero_axis(n->inputs[k]);
		if (ax < 0)
			continue;
		qir_escape_text(node, sizeof(node), n->name);
		qir_escape_text(tensor, sizeof(tensor), n->inputs[k]->name);
		qm_say(s, QOPT_LOG_ERROR, "%s: error: node '%s' (%s): its %s "
		       "'%s' has size 0 on axis %d: ONNX Runtime does not "
		       "return from a Conv over an empty tensor (zero input "
		       "channels); refused before ORT runs it\n", who, node,
		       n->op_type, k ? "weight" : "input", tensor, ax);
		return -1;
	}
	return 0;
}

static int refuse_graph(qm_session *s, const char *who, const qir_graph *g)
{
	const qir_node *n;
	size_t a, k;

	for (n = g->first; n; n = n->next) {
		if (is_conv(n) && refuse_node(s, who, n) < 0)
			return -1;
		for (a = 0; a < n->nattrs; a++) {
			if (n->attrs[a].g && refuse_graph(s, who, n->attrs[a].g))
				return -1;
			for (k = 0; n->attrs[a].graphs && k < n->attrs[a].n; k++)
				if (refuse_graph(s, who, n->attrs[a].graphs[k]))
					return -1;
		}
	}
	return 0;
}

int calib_ort_refuse(qm_session *s, const char *who, const qir_model *m)
{
	return refuse_graph(s, who, m->graph);
}
