/* bpf_map_sum.c - prints what the loaded BPF array maps of one name hold, summed over every such map.
 *
 *   bpf_map_sum NAME
 *
 * Walks the kernel's BPF maps (bpf_map_get_next_id), keeps the array maps
 * whose name is NAME and whose values are 32-bit counters, adds their values
 * key by key and prints "KEY COUNT" for every key whose sum is not zero.
 * Each tc attachment of one object has its own instance of the map, so the
 * sum covers every device the test attached the program to. Used by
 * test_toed_ab.sh to learn which messages lossy_tc.bpf.c really dropped
 * (its map of dropped messages) while its filters are still attached. Needs root.
 * Exits 1 when no such map is loaded.
 */
#include <bpf/bpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	__u32 id = 0, key, n = 0, maps = 0, *sum = NULL;
	if (argc != 2) {
		fprintf(stderr, "usage: bpf_map_sum NAME\n");
		return 2;
	}
	while (bpf_map_get_next_id(id, &id) == 0) {
		struct bpf_map_info info;
		__u32 len = sizeof info;
		int fd = bpf_map_get_fd_by_id(id);
		if (fd < 0)
			continue; /* freed meanwhile */
		memset(&info, 0, sizeof info);
		if (bpf_obj_get_info_by_fd(fd, &info, &len) == 0 && strcmp(info.name, argv[1]) == 0 &&
		    info.type == BPF_MAP_TYPE_ARRAY && info.key_size == 4 && info.value_size == 4) {
			if (!sum) {
				n = info.max_entries;
				sum = calloc(n, sizeof *sum);
				if (!sum) {
					perror("bpf_map_sum: calloc");
					return 2;
				}
			}
			for (key = 0; key < n && key < info.max_entries; key++) {
				__u32 v;
				if (bpf_map_lookup_elem(fd, &key, &v) == 0)
					sum[key] += v;
			}
			maps++;
		}
		close(fd);
	}
	if (errno != ENOENT && errno != 0)
		perror("bpf_map_sum: bpf_map_get_next_id");
	if (!maps) {
		fprintf(stderr, "bpf_map_sum: no array map named %s is loaded\n", argv[1]);
		return 1;
	}
	for (key = 0; key < n; key++)
		if (sum[key])
			printf("%u %u\n", key, sum[key]);
	free(sum);
	return 0;
}
