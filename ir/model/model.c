/*
 * ir/model/model.c - models: creation, teardown, opset imports, metadata.
 */
#include <stdlib.h>
#include <string.h>
#include "model/internal.h"

static const char *norm_domain(const char *d)
{
	/* "" and "ai.onnx" both name the default operator set. */
	if (!d || strcmp(d, "ai.onnx") == 0)
		return "";
	return d;
}

qir_model *qir_model_new(int64_t ir_version, int64_t opset, qir_error *err)
{
	qir_model *m = calloc(1, sizeof(*m));

	if (!m)
		goto nomem;
	m->priv = calloc(1, sizeof(struct ir_model_priv));
	if (!m->priv)
		goto nomem;
	m->ir_version = ir_version;
	m->graph = ir_graph_new(m, NULL, NULL, "main");
	if (!m->graph)
		goto nomem;
	/* opset <= 0: no import yet (the reader adds the file's). */
	if (opset > 0 && qir_model_set_opset(m, "", opset) < 0)
		goto nomem;
	return m;
nomem:
	qir_model_free(m);
	qir_fail(err, QIR_ENOMEM, "out of memory creating a model");
	return NULL;
}

void qir_model_free(qir_model *m)
{
	struct ir_model_priv *mp;
	ir_mapping *map, *next;
	void *entry;
	size_t i, it = 0;

	if (!m)
		return;
	mp = m->priv;
	if (mp && mp->release)
		mp->release(m);
	ir_graph_free_ex(m->graph, 0);
	if (mp) {
		for (map = mp->maps; map; map = next) {
			next = map->next;
			ir_mapping_close(map);
			free(map->path);
			free(map);
		}
		while (ir_strmap_next(&mp->hint_next, &it, NULL, &entry))
			free(entry);
		ir_strmap_free(&mp->hint_next);
		ir_names_free(mp);
		ir_strmap_free(&mp->node_names);
		ir_spill_close(m);
		for (i = 0; i < 64; i++)
			free(mp->load_note[i]);
		for (i = 0; i < mp->nfunctions; i++)
			free(mp->functions[i]);
		free(mp->functions);
		free(mp->dir);
		free(mp);
	}
	for (i = 0; i < m->nopsets; i++)
		free(m->opsets[i].domain);
	free(m->opsets);
	for (i = 0; i < m->nmetadata; i++) {
		free(m->metadata[i].key);
		free(m->metadata[i].value);
	}
	free(m->metadata);
	free(m->producer_name);
	free(m->producer_version);
	free(m->domain);
	free(m->path);
	free(m);
}

int64_t qir_model_opset(const qir_model *m, const char *domain)
{
	const char *d = norm_domain(domain);
	size_t i;

	for (i = 0; i < m->nopsets; i++)
		if (strcmp(norm_domain(m->opsets[i].domain), d) == 0)
			return m->opsets[i].version;
	return 0;
}

int qir_model_set_opset(qir_model *m, const char *domain, int64_t version)
{
	const char *d = norm_domain(domain);
	qir_opset o;
	size_t i;

	for (i = 0; i < m->nopsets; i++) {
		if (strcmp(norm_domain(m->opsets[i].domain), d) == 0) {
			m->opsets[i].version = version;
			return 0;
		}
	}
	o.domain = strdup(domain ? domain : "");
	o.version = version;
	if (!o.domain ||
	    ir_array_push(&m->opsets, &m->nopsets, sizeof(o), &o) < 0) {
		free(o.domain);
		return -1;
	}
	return 0;
}

int qir_model_remove_opset(qir_model *m, const char *domain)
{
	const char *d = norm_domain(domain);
	size_t i;

	for (i = 0; i < m->nopsets; i++) {
		if (strcmp(norm_domain(m->opsets[i].domain), d))
			continue;
		free(m->opsets[i].domain);
		memmove(&m->opsets[i], &m->opsets[i + 1],
			(m->nopsets - i - 1) * sizeof(m->opsets[0]));
		m->nopsets--;
		return 1;
	}
	return 0;
}

int qir_model_set_metadata(qir_model *m, const char *key, const char *value)
{
	qir_kv kv;
	char *v;
	size_t i;

	if (!key)
		return -1;
	v = strdup(value ? value : "");
	if (!v)
		return -1;
	for (i = 0; i < m->nmetadata; i++) {
		if (strcmp(m->metadata[i].key, key) == 0) {
			free(m->metadata[i].value);
			m->metadata[i].value = v;
			return 0;
		}
	}
	kv.key = strdup(key);
	kv.value = v;
	if (!kv.key ||
	    ir_array_push(&m->metadata, &m->nmetadata, sizeof(kv), &kv) < 0) {
		free(kv.key);
		free(v);
		return -1;
	}
	return 0;
}

/* What the load's inference (ir/infer, above this layer) leaves on the
 * model and its values: kept here, so the model and its printer read
 * them without calling up into the inference. */
int qir_value_type_inferred(const qir_value *v)
{
	return v && v->priv && QIR_VPRIV(v)->inferred;
}

void ir_model_keep_note(void *arg, const char *msg)
{
	struct ir_model_priv *p = arg;

	if (p->load_notes < 64)
		p->load_note[p->load_notes] = strdup(msg);
	p->load_notes++;
}

size_t qir_model_load_notes(const qir_model *m)
{
	return m && m->priv ? QIR_MPRIV(m)->load_notes : 0;
}

const char *qir_model_load_note(const qir_model *m, size_t i)
{
	return i < qir_model_load_notes(m) && i < 64 ?
	       QIR_MPRIV(m)->load_note[i] : NULL;
}
