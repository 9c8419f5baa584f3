/*
 * core/manager/plugin-symbols.c - which libqopt function a plugin needs
 * and this libqopt lacks, read from the plugin's dynamic symbol table.
 *
 * The loader knows a plugin has an unresolved symbol when RTLD_NOW
 * fails and RTLD_LAZY succeeds; the name comes from here, not from
 * dlerror()'s wording (which differs between C libraries and
 * locales). The file is untrusted: every offset is checked against
 * its size before use.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "manager/registry.h"

/* [off, off + len) lies inside a file of size bytes. */
static int inside(uint64_t off, uint64_t len, uint64_t size)
{
	return off <= size && len <= size - off;
}

static int public_name(const char *s)
{
	return !strncmp(s, "qopt_", 5) || !strncmp(s, "qir_", 4) ||
	       !strncmp(s, "qk_", 3);
}

/* The section header of the dynamic symbol table, or NULL. */
static const ElfW(Shdr) *find_dynsym(const unsigned char *p, size_t size)
{
	const ElfW(Ehdr) *eh = (const void *)p;
	const ElfW(Shdr) *sh;
	size_t i;

	if (size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != (sizeof(void *) == 8 ? ELFCLASS64 :
							     ELFCLASS32) ||
	    eh->e_shentsize != sizeof(*sh) ||
	    !inside(eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(*sh), size) ||
	    eh->e_shoff % _Alignof(ElfW(Shdr)))
		return NULL;
	sh = (const void *)(p + eh->e_shoff);
	for (i = 0; i < eh->e_shnum; i++)
		if (sh[i].sh_type == SHT_DYNSYM && sh[i].sh_link < eh->e_shnum)
			return &sh[i];
	return NULL;
}

/* Scans the mapped file for an undefined, non-weak public-prefix symbol
 * that neither the global scope nor h (the plugin and its
 * dependencies) defines. */
static const char *scan(const unsigned char *p, size_t size, void *h,
			char *buf, size_t n)
{
	const ElfW(Ehdr) *eh = (const void *)p;
	const ElfW(Shdr) *ds = find_dynsym(p, size), *ss;
	const ElfW(Sym) *sym;
	const char *str;
	size_t i, count;

	if (!ds || ds->sh_entsize != sizeof(*sym) ||
	    !inside(ds->sh_offset, ds->sh_size, size) ||
	    ds->sh_offset % _Alignof(ElfW(Sym)))
		return NULL;
	ss = (const ElfW(Shdr) *)(const void *)(p + eh->e_shoff) + ds->sh_link;
	if (!inside(ss->sh_offset, ss->sh_size, size) || !ss->sh_size ||
	    p[ss->sh_offset + ss->sh_size - 1] != 0)
		return NULL;
	sym = (const void *)(p + ds->sh_offset);
	str = (const char *)p + ss->sh_offset;
	count = ds->sh_size / sizeof(*sym);
	for (i = 1; i < count; i++) {
		const char *name;

		if (sym[i].st_shndx != SHN_UNDEF ||
		    ELF64_ST_BIND(sym[i].st_info) == STB_WEAK ||
		    sym[i].st_name >= ss->sh_size)
			continue;
		name = str + sym[i].st_name;
		if (!public_name(name) || strlen(name) >= n ||
		    dlsym(RTLD_DEFAULT, name) || dlsym(h, name))
			continue;
		memcpy(buf, name, strlen(name) + 1);
		return buf;
	}
	return NULL;
}

const char *pm_plugin_missing_function(const char *path, void *h, char *buf,
				       size_t n)
{
	const char *found = NULL;
	struct stat st;
	void *p;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd,
			 0);
		if (p != MAP_FAILED) {
			found = scan(p, (size_t)st.st_size, h, buf, n);
			munmap(p, (size_t)st.st_size);
		}
	}
	close(fd);
	return found;
}
