# Wave facts the wave model cannot run: a size other than 32/64, a default that is not
# among the (valid) sizes, an unknown wave64 ds_bpermute scope. Each names its
# WaveModel field, at the Target's 'wave' argument.
from tdgen.hw import WaveModel
from tdgen.model import Target

TARGET = Target("tiny", "Tiny", "tiny",
                wave=WaveModel(sizes=(32, 16), default_size=64, bpermute_wave64="quarter"))
