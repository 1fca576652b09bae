# The build of hostile-build-link: in its copy (its working folder), leave every name the
# runner writes in a copy as a relative link to a file of the organiser's, the first line of
# targets.txt (the tests write it there), else a harmless file in /tmp. The runner that writes
# its marker through the link overwrites that file. The sandbox shows the copy at a path of
# its own, so the way to the file is worked out from where the copy is on the host, which the
# kernel tells in /proc/self/mountinfo (the source of the mount holding the working folder).
target=$(head -n 1 targets.txt 2>/dev/null)
[ -n "$target" ] || target=/tmp/arena-hostile-build-link
here=$(pwd)
host=$(awk -v d="$here" '
    $5 == d || index(d, $5 "/") == 1 {
        if (length($5) > best) { best = length($5); src = $4 substr(d, length($5) + 1) }
    }
    END { print src }' /proc/self/mountinfo)
[ -n "$host" ] || host=$here
echo "hostile[build-link]: the copy is at $host on the host"
way=$(realpath -m --relative-to="$host" "$target")
for name in .arena-built .arena-unpacked; do
    ln -s "$way" "$name" && echo "hostile[build-link]: left $name -> $way"
done
