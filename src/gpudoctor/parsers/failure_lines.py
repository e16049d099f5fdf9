"""Failure lines of the GPU stack that no catalogue entry knows, each with the component that failed.

The catalogue (catalogue.toml) and the fixed extractors (error_texts) read the messages whose meaning is known. A
paste can show a failure neither knows: the last line of a traceback, a loader's refusal, a CUDA error code, a
daemon's or a pod's error. Such a line is still evidence that something failed (issues 28 and 31: never a clean
bill over it), and its form says which component to ask about: the library the loader could not load or bind, the
DLL Windows refused, the Python module that raised, the daemon, the pod. These forms read only lines that name the
GPU stack (a CUDA or NVIDIA library, cuDNN, cuBLAS, NCCL, NVML, TensorRT, a GPU); a program's own faults (out of memory, a
shape, an invalid device ordinal, an assertion) are never read here: the program, not the environment, explains
them (the catalogue's program-fault entries say what they mean).

A reporter also tells a failure without showing its line (issues 28 and 31, set 10's reviews): "the training freezes
with 4 GPUs", "TensorFlow produces NaN", "I cannot get cupy to work with CUDA", "I got this error:" above a screenshot.
Such words are read too (the `said` forms, component_kind "said"), on a line that names the GPU stack or a GPU
framework, and never where the same line says it is over ("no longer hangs", "without any errors"): the report then
names what was reported and that its cause is not shown, and asks for the failing command's whole output. An error
told in a sentence that names nothing of the stack ("when I start the server it raises an error") is read too where the
paste names the stack or a GPU framework elsewhere (issue 27: a clean bill over a paste whose error was cut is always
wrong), and where no error is shown below it: no line read already, no exception, no failure, no program's own fault, no
warning it calls an error. A sentence that introduces the error with a colon above one line of output ("there is the
error:" then "XGBoost version not compile with GPU support.") has that line read as the failure (form error-introduced).

A Python traceback's last line ("Type: message" after its frames, Python's traceback format) is a failure wherever no
entry knows it, whatever it names (the `traceback-end` form): the program stopped there. It is read with its
exception's type and its subject (the module a ModuleNotFoundError or ImportError names, the DLL or shared object an
OSError names, the op a build's assertion names), which decide what to ask. It is not read where Python went on past
it: an exception "ignored in" an object's finaliser (sys.unraisablehook's report, at interpreter exit too) or a
KeyboardInterrupt (the person stopped the run).

A failure any program prints is read whatever it names (the program forms, issues 28 and 31 item 2): a CMake configure
that stops, a compiler's or linker's error, a process killed (the OOM killer, "Killed", status 137 or -9), a
segmentation fault, an application's own log line at ERROR level, top's or free's memory all but used up. Its subject
(what the configure could not find, the header, the kill, the crash) decides the asks. A line of code, a lower log
level, a question, a program's own fault (the GPU's memory, a shape) is not read.

Pure: lines in, ErrorEvidence of kind "gpu-stack-failure" out, with `form`, `component`, `component_kind`
(library, dll, module, package, daemon, pod, toolkit, runtime, said; a traceback's end also build and exception, with
its `exception` type; the program forms configure, build, header, killed, crash, log, memory) and, where the line names it, `requirer` (the object that needs the library).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from gpudoctor.lazypattern import LazyPattern
from gpudoctor.parsers.error_texts import ErrorEvidence

KIND = "gpu-stack-failure"
_MAX_LINE = 2000  # a longer line is a log's flood, not a failure line
_MAX_FOUND = 8  # the first few lines are the failure; the rest repeat it

# The GPU stack: CUDA's and NVIDIA's libraries by the stems of their sonames and DLLs (libcudart, cudnn64_8.dll,
# cublasLt64_12.dll, nvinfer), NVML, NCCL, TensorRT, and the words GPU and NVIDIA.
_GPU_STACK = LazyPattern(
    r"cuda|cudnn|cublas|cufft|curand|cusparse|cusolver|nccl|nvml|nvidia|nvrtc|nvinfer|tensorrt|cupti|nvjitlink|"
    r"nvcuvid|\bGPUs?\b|\bnvcc\b|\b(?:video|graphics) cards?\b",
    re.IGNORECASE,
)
# A program's own faults: what it asked of a working GPU (memory, a shape, a device index it chose, its own assertion,
# a tensor on the wrong device). Never the environment's to explain (the catalogue's "program-fault" evidence,
# gpudoctor.checks.reported).
_PROGRAM_FAULT = LazyPattern(
    r"out of memory|OutOfMemory|\bOOM\b|not enough (?:GPU |video |device )?memory|ALLOC_FAILED|invalid device ordinal|device-side assert|illegal memory access|"
    r"misaligned address|size mismatch|\bshapes?\b|dimension|same device|Expected (?:all tensors|object of)|"
    r"AssertionError|IndexError|KeyError|TypeError|AttributeError|NameError|SyntaxError|ZeroDivisionError|"
    r"KeyboardInterrupt|no space left|bfloat16|\bdtype\b"
    # JAX tries every backend it knows and logs the ones this machine lacks ("Unable to initialize backend 'rocm'",
    # jax/_src/xla_bridge.py): no failure unless that backend was asked for
    r"|Unable to initialize backend '(?:rocm|tpu|metal|METAL)'",
    re.IGNORECASE,
)
# A line of a program's code (a comparison, a case label, a statement) or of a log below warning level (an INFO line's
# retry): it names an error without the error happening (tests/pasted/test_catalogue_cuda_errors.py's quiet lines). (A
# sentence that starts "for example" is prose quoting a line, not a for loop: plans13/1308.)
_NOT_HAPPENING = LazyPattern(
    # (a comparison, not a package's pin in a sentence: "pynini==2.1.6" names the version installed, plans19/1942)
    r"!=|(?<!\w)==|==(?!\d)|^(?:if|case|return|elif|else|while|for(?! example| instance))\b|^#|//|[{;]\s*$|^\S*\s*(?:INFO|DEBUG|I\d{4})\b|\bretrying\b"
    # TensorFlow's own logger at warning level: it goes on without what it could not load (checks/reported._TF_WARNING)
    r"|\d: W \S+\.cc:\d+\]"
    # NCCL's own INFO level ("host:pid:tid [dev] NCCL INFO ..."): what it found and tried, its WARN lines are the failures
    r"|\bNCCL INFO\b",
    re.IGNORECASE,
)
_SONAME = r"[\w.+-]{1,120}?\.so(?:\.[\w]{1,12}){0,4}"

# What a reporter's sentence must name to be about the GPU environment: the stack's words, or a framework that runs on it.
_SAID_FRAMEWORK = LazyPattern(r"\b(?:py)?torch\b|tensorflow|\bjax\b|cupy|paddle", re.IGNORECASE)
# (a GeForce named by its series, "rtx4070", "GTX 1080": the sentence is about that GPU)
_SAID_SUBJECT = LazyPattern(
    _GPU_STACK.source()[0]
    + "|"
    + _SAID_FRAMEWORK.source()[0]
    + r"|\bNVENC\b|\bNVDEC\b|\b[RG]TX\s?\d{3,4}\b"
    # a program's own device choice ("the device choice is CPU only"): the sentence is about the device it runs on
    + r"|\bdevice\s+(?:choice|list|dropdown|selection|options?)\b"
    # the GPU named inside a Chinese sentence ("看到CPU上升，但是GPU没有上升"), where no word boundary sets it apart
    + r"|(?<=[\u3400-\u9fff])GPU|GPU(?=[\u3400-\u9fff])",
    re.IGNORECASE,
)
# Windows' Task Manager named as where the reporter saw the GPU idle ("when I watch my task manager, I noticed that my gpu
# was not being used"; "task" with a transposed pair, "tsak", "taks", as typed in a hurry): its default GPU graphs are
# the 3D, Copy and Video engines, not CUDA's compute (gpudoctor.facts.GPU_GRAPH_SAID), so the sentence is no evidence
# that a CUDA program runs on the CPU. The asker asks for nvidia-smi while the program runs instead.
# The words, one pattern for every reader of them: this one, and the platform cues (gpudoctor.pasted.cues: Task Manager is
# Windows' own tool).
TASK_MANAGER_WORDS = r"\bt(?:ask|sak|aks)\s?manager\b"
GPU_GRAPH = LazyPattern(TASK_MANAGER_WORDS, re.IGNORECASE)
# The same sentence saying the failure is over or never was: an answer, a fix, a question's premise denied.
_SAID_OVER = LazyPattern(
    r"\bno longer\b|\bnot anymore\b|"
    r"\b(?:runs?|ran|works?|worked|completes?|completed|finish(?:es|ed)?)\b(?:\s+\w+){0,3}\s+without (?:any |an )?errors?\b|"
    r"\b(?:fixed|solved|resolved|works? (?:fine|now|perfectly|well))\b"
    # the reporter asking whether what they see is a bug ("So is this a bug to load all the models as once internally?
    # Since my gpu memory is quite large, ..."): a question about behaviour they describe, not a failure they hit, even
    # where more words follow its question mark (tests/blind/plans13/cases/1354-*, a control; the same question in
    # tests/blind/plans12/cases/1247-*, a control)
    r"|\b(?:is|was|are)\s+(?:this|it|that|these)\s+(?:(?:a|an|the)\s+)?(?:\w+\s+){0,2}bugs?\b[^.!?\n]{0,200}\?",
    re.IGNORECASE,
)
# A sentence's end: a line is read sentence by sentence where it asks a question ("The device choice is CPU only. Is it
# because CUDA 12.2 is not supported?"): the question tells nothing failed ("does it use the GPU?"), the statement does.
_SENTENCE_END = LazyPattern(r"(?<=[.!?])\s+")


def _statements(line: str) -> str:
    """The line without the sentences it asks as questions (its own words otherwise, as they were)."""
    if "?" not in line:
        return line
    return " ".join(x for x in _SENTENCE_END.split(line) if not x.rstrip().endswith("?"))


# A sentence that sets what works against what fails ("with --gpus 0, works fine but with --gpus 0,1 hangs"): its
# failure stands beside the words that something works.
# ("Though when I run some simple calculations on gpu it works fine": the failure told before it stands, plans10/1017)
_CONTRAST = LazyPattern(r"\bbut\b|\bhowever\b|\bwhile\b|\bwhereas\b|\b(?:al)?though\b", re.IGNORECASE)
# (form, pattern) of a failure told in words, tried after _FORMS on a line that names _SAID_SUBJECT.
_SAID_FORMS: tuple[tuple[str, LazyPattern], ...] = (
    # it never ends: "hangs", "freezes", "stuck", "does not return", "times out", "infinite buffering"
    (
        "hang-said",
        LazyPattern(
            r"\b(?:hangs?|hanging|hung|freez(?:es|ing|e)|froze(?:n)?|stuck|deadlock(?:s|ed)?|time[sd]? out|timeouts|"
            r"never (?:returns|finishes|completes|ends)|does(?:n't|n’t| not) return|infinite(?:ly)? buffering)\b",
            re.IGNORECASE,
        ),
    ),
    # wrong numbers out: NaN, black or blank images
    (
        "nan-said",
        LazyPattern(
            r"(?<![-\w])NaNs?(?![-\w])|\b(?:all[- ])?black (?:images?|pictures?|output|frames?)\b|\bblank images?\b",
            re.IGNORECASE,
        ),
    ),
    # "I cannot get cupy to work", "Ray fails to allocate GPUs", "the operator cannot deploy", "I cannot run tabby"
    (
        "fails-said",
        LazyPattern(
            # ("can not" written apart is the same word: "it reports that can not find nvinfer.dll", plans16/1601)
            r"\b(?:can(?:no|['’])?t|can not|could(?:n['’]t| not)|unable to|fail(?:s|ed)? to|won['’]t|will not)\s+"
            r"(?:get\s+\S{1,40}\s+to\s+)?(?:work|run|start|deploy|launch|allocate|transcode|initiali[sz]e|recogni[sz]e)\b"
            # a library it cannot find or load, named by its file ("can not find nvinfer.dll", "cannot load
            # libcudnn_ops.so.9"): the loader's refusal in the reporter's words. (Not "could not" nor "unable to", the
            # words programs print themselves: TensorFlow's "could not open file to read NUMA node", a benign notice in
            # the fine case plans5/424; nor a thing that is no library: a MIG resource not listed, the fine plans6/502.)
            r"|\b(?:can(?:no|['’])?t|can not)\s+(?:find|load|locate)\s+(?:the\s+|any\s+)?['\"`]?[\w.+-]{1,120}\.(?:dll|so)\b"
            # "there are problems in locating the cuDNN files", "trouble loading libcudnn" (plans12/1234)
            r"|\b(?:problems?|trouble|issues?)\s+(?:in\s+|with\s+)?(?:locating|loading|finding|detecting)\b"
            r"|\b(?:fails?|failed)\s+(?:to\s+\w+\s+)?(?:properly|respectively|on|with|when)\b"
            # what it failed to do to the stack: "cupy fails to load the `cudart64_12.dll`", "all fails to detect gpu"
            r"|\bfail(?:s|ed)? to (?:load|find|detect|see|use|import|open)\b"
            # "it never works", "nothing worked", "none of them works" (each image tried), "does not detect my GPU", "it
            # failed." (not "doesn't work" alone: "it seems that the gpu doesn't work" is a guess read off a monitor,
            # plans3/203)
            r"|\bnever works?\b|\bnothing (?:works?|worked)\b|\bnone of (?:them|these|those) (?:works?|worked)\b(?! (?:better|faster|as))"
            r"|\b(?:does|do|did)(?:n['’]t| not) (?:detect|see|find)\b"
            r"|\bit failed\b",
            re.IGNORECASE,
        ),
    ),
    # the program on the CPU where the GPU was meant: "LocalAI using CPU instead of GPU", "all fails to detect gpu and
    # fallback to cpu"
    (
        "cpu-said",
        LazyPattern(
            # (not "still using CPU": a model partly offloaded runs its other layers there, plans9/945, a control)
            # ("it's using my CPU instead of my GPU", jamiepine/voicebox#222)
            r"\bCPU\s+(?:instead of|rather than)\s+(?:the\s+|my\s+)?GPU\b|\b(?:falls?|fell|falling)\s*back\s+to\s+(?:the\s+)?CPU\b"
            # the CPU told as what runs instead ("Am instead running on CPU", iperov/DeepFaceLab#343; "Instead, it uses
            # the CPU.", curtisgray/wingman#3); never the wish, which puts "instead" after ("run it on the CPU instead")
            r"|\binstead\b,?\s+(?:(?:it|I|we|am|is|it's|its|are)\s+){0,2}(?:running|runs|ran|uses|using|used)\s+(?:on\s+)?"
            r"(?:the\s+|my\s+)?CPU\b"
            # the GPU told as unused ("GPU cannot be used", "the GPU is not used", "CUDA isn't being utilized")
            r"|\b(?:GPUs?|CUDA|graphics cards?)\s+(?:can(?:no|['’])?t|could(?:n['’]t| not)|is(?:n['’]t| not)|are(?:n['’]t| not)"
            r"|was(?:n['’]t| not)|were(?:n['’]t| not))\s+(?:be(?:ing)?\s+)?(?:used|utili[sz]ed)\b"
            # the GPU told as not there for the run ("when I train, the GPU is not available", plans15/1547); not a
            # program's own notice without the verb ("CUDA not available - defaulting to CPU": EasyOCR on a machine
            # without a GPU, the fine case plans11/1143)
            r"|\b(?:the|my|a|any)\s+(?:NVIDIA\s+)?(?:GPUs?|CUDA|graphics cards?)\s+(?:is(?:n['’]t| not)|are(?:n['’]t| not)"
            r"|was(?:n['’]t| not)|were(?:n['’]t| not))\s+(?:being\s+)?(?:available|detected|recogni[sz]ed|found|visible)\b"
            # only the CPU offered where a device is chosen ("the device choice is CPU only", "only CPU is available")
            r"|\bonly\s+(?:the\s+)?CPU\s+(?:is\s+|was\s+)?(?:offered|available|listed|shown|selectable)\b"
            r"|\bdevice\s+(?:choice|list|dropdown|selection|options?)\b[^.\n]{0,30}?\bCPU\s+only\b"
            # the CPU said used and the GPU said not, in either order ("its only utilizing my CPU and not my GPU",
            # plans17/1737; "It doesn't use my GPU only CPU", lllyasviel/style2paints#141)
            r"|\b(?:us(?:es|ing)|utili[sz](?:es|ing))\s+(?:only\s+)?(?:the\s+|my\s+)?CPU\s*,?\s+(?:and|but)\s+not\s+(?:the\s+|my\s+)?GPU\b"
            r"|\b(?:does|do|is)(?:n['’]t| not)\s+us(?:e|ing)\s+(?:the\s+|my\s+)?GPU\s*,?\s+(?:only|just)\s+(?:the\s+|my\s+)?CPU\b"
            # the same in Chinese: only the CPU used ("只使用CPU", QwenAudio/CosyVoice#687), the GPU idle or not rising
            # while the CPU works ("GPU空闲", continue-revolution/sd-webui-animatediff#322; "GPU没有上升", plans17/1747;
            # "GPU没有用上", HypoX64/DeepMosaics#79). Not "GPU空闲显存", the GPU's free memory.
            r"|(?:只|仅)(?:使用|用|跑)了?\s?CPU"
            # only on the CPU it runs or infers ("只能cpu推理", plans19/1942; "仅在cpu上运行，不使用gpu", Tencent/ncnn#2927),
            # and the GPU or CUDA that cannot be loaded or used ("无法加载cuda", plans19/1942; "无法调用GPU",
            # chatchat-space/Langchain-Chatchat#1858; "无法使用GPU转换", AaronFeng753/Waifu2x-Extension-GUI#52)
            r"|(?:只|仅)能?(?:在|用|使用)?\s?CPU\s?上?(?:运行|跑|推理|训练|计算)"
            r"|无法(?:加载|调用|使用|识别|检测到?)\s?(?:GPU|CUDA|显卡)"
            r"|GPU\s?(?:(?:一直)?空闲(?!显存|内存|时)|闲置|没有?(?:上升|用上|使用|占用|动)|没怎么用)"
            # nvidia-smi listing no process while the program runs ("nvidia-smi shows no process")
            r"|\bnvidia-smi\b[^.\n]{0,40}?\b(?:shows?|showed|lists?|listed|displays?)\s+no\s+(?:running\s+)?process(?:es)?\b",
            re.IGNORECASE,
        ),
    ),
    # an error told, not shown: "an error occurred", "I got this error", "it is reporting some errors", "I get the CUDNN
    # version mismatch"
    (
        "error-said",
        LazyPattern(
            r"\b(?:got|get|gets|getting|gives?|giving|raises?|raised|throws?|threw|reporting|returns?|hit|see|facing|meet|"
            r"encounter(?:ed|ing)?|with)\s+"
            r"(?:(?:me|us|an?|this|that|the|some|same|following|these)\s+){0,3}(?:errors?|exceptions?|(?:[\w.-]+\s+){0,2}mismatch)\b"
            r"|\b(?:an?|the)\s+(?:following\s+)?errors?\s+(?:occurred|occurs|happens|happened|appears|appeared)\b"
            # ("there is the error:", the reporter's words above where the error would be shown)
            r"|\bthere\s+(?:is|was|are|were)\s+(?:an?|the|this|that|these|some)\s+errors?\b"
            # the program's error quoted from memory in the sentence ("it gives ' Failed to get convolution error'",
            # plans10/1017): a quotation after the verb that holds the error's own words
            r"|\b(?:got|get|gets|getting|gives?|giving|raises?|raised|throws?|threw|returns?|shows?|showed|says)\s+"
            r"['\"‘“][^'\"’”\n]{0,160}?\b(?:errors?|fail(?:s|ed|ure)?)\b",
            re.IGNORECASE,
        ),
    ),
    # the work much slower under WSL than on the same machine's Windows ("Onnxruntime in WSL with CUDA is much slower than
    # windows", plans19/1922; "TensorFlow GPU performance on WSL2 lags behind ... native Windows", microsoft/WSL#10787):
    # the GPU answers there, and what slows it (a CPU fallback, data read through /mnt, the paravirtualised GPU) is open
    (
        "slow-said",
        LazyPattern(
            r"\bWSL\s*2?\b[^.\n]{0,80}?\b(?:slow(?:er|est)\b|lags?\s+behind\b)"
            r"|\bslow(?:er|est)\b[^.\n]{0,60}?\b(?:in|on|under|inside|with)\s+(?:the\s+)?WSL\b",
            re.IGNORECASE,
        ),
    ),
)
# A GPU's counter that reads one value ("gpu usage is stuck at 0", "the GPU usage is always stuck on 0%"): a monitor's
# reading, which a tool that cannot read the counter shows too (NVML under WSL 2 reports no utilisation: NVIDIA's CUDA
# on WSL User Guide, known limitations), not a program that never ends. A program's progress stuck at a value ("training
# stuck at 0%") is still a hang: only the GPU's own counter is taken out.
_COUNTER_STUCK = LazyPattern(
    r"\b(?:GPU|GPU-Util)\s+(?:utili[sz]ation|usage|util|load|activity)\b[^.\n]{0,30}?\bstuck\s+(?:at|on)\s+\d",
    re.IGNORECASE,
)
# A line the program printed, not the reporter's sentence: a warning or an exception with its colon, a source file's
# line, a log level, a timestamp. Its words are the program's ("UserWarning: Failed to launch Triton kernels ...;
# falling back", a control of set 10): _FORMS reads such a line, the said forms never do.
_PRINTED = LazyPattern(
    r"\b\w*(?:Warning|Error|Exception)\s*:|\.py[:\"]|\.(?:cc|cpp|cu|c|h):\d|\b(?:WARN(?:ING)?|ERROR|INFO|DEBUG)\b|"
    r"^\W{0,3}\d{4}-\d\d-\d\d|\w\([\"']"  # (the last: a call with a string, the source line a warning prints)
)
# (code between backticks, and a quotation in double quotes that holds a space: a log line the sentence quotes, "It
# freezes at the point \"2018-09-04 ...: I tensorflow/.../gpu_device.cc:1484] Adding visible gpu devices\"", plans14/1422)
_QUOTED = LazyPattern(r"`[^`]{0,300}`|\"(?=[^\"\n]{0,600}?\s)[^\"\n]{1,600}\"|“[^”\n]{0,600}”")
# The next line shows an error after all ("I get the following error message:" then the message): the paste shows it.
_SHOWN_NEXT = LazyPattern(r"error|exception|fail|traceback|fatal", re.IGNORECASE)
# The error shown below a sentence that tells it, past the paste's code fences: an exception's class, a traceback, a
# log's error level, a failure printed ("NCCL WARN Failed to open libibverbs.so[.1]" below "and get an error", a control
# of set 7). Not the word "error" in a program's banner ("please submit your error trace to", bitsandbytes' start-up).
_SHOWN_BELOW = LazyPattern(
    r"[a-z](?:Error|Exception)\b|\bTraceback\b|\b(?:ERROR|FATAL|FAILED|CRITICAL)\b|\b[Ff]ail(?:ed|s|ure)?\b"
    r"|\b(?:error|fatal)\s*[:\]]|\bSegmentation fault\b|^Killed\b"
)
_FENCE = LazyPattern(r"^(?:```|~~~)[\w+-]*$|^</?(?:pre|code)>$", re.IGNORECASE)
_LINK = LazyPattern(r"\b[a-z][a-z0-9+.-]{1,20}://\S{1,600}", re.IGNORECASE)
# A warning shown below the sentence: what the reporter calls an error is a warning, which is no failure.
_WARNING_SHOWN = LazyPattern(r"Warning\b|\bWARN(?:ING)?\b|^W\d{4}\b|\[W\]|: W \S")
# A command line below the sentence (a shell's or PowerShell's prompt): what they ran, not what it printed.
_COMMAND = LazyPattern(r"^(?:[$>%]\s|\(\S{1,80}\)\s*\S*[$#>]\s|PS [A-Za-z]:|[A-Za-z]:\\[^>]{0,200}>)")
_INTRODUCED = 3  # the lines just below a sentence: the output it introduces
_BELOW = 40  # the lines read below a sentence for the error it tells: the block of output it introduces
# The one who hit the error: the reporter ("I get", "we see", "my job") or what they ran ("it raises"). Not a third
# party's behaviour described ("Slurm doesn't let you schedule the job and raises an error", a control of set 12).
_TOLD_BY = LazyPattern(r"\b(?:I|we|me|us|my|our|it)\b", re.IGNORECASE)
# A line of a listing (IPython's frames print the source with its line numbers, "166     # Loop on join until it returns
# True or raises an exception.", a control of set 16): code, not a sentence.
_LISTING = LazyPattern(r"^(?:-*>\s*)?\d+\s{2,}")
# An image a paste links ("![error](https://...png)", an <img> tag): what it shows cannot be read.
_PICTURE = LazyPattern(r"!\[[^\]]{0,200}\]\(\S{1,600}\)|<img\s", re.IGNORECASE)
# A sentence that tells of an error ("and I got this error -", "报错如下：", "this happens:", an issue form's "Describe
# the bug" heading): with a picture as the next line, the error is only in the picture. (A picture captioned "error"
# alone is not told as a failure: a warning the reporter asks about is captioned so too, plans5/443, a control.)
_ERROR_INTRO = LazyPattern(r"\b(?:errors?|exceptions?|traceback|bug)\b|\b(?:this|it) happen(?:s|ed)\b|报错|错误", re.IGNORECASE)


# A traceback's header (Python's "Traceback (most recent call last):"; IPython prints the exception's type before the
# same words) and a frame line ('File "<file>", line <n>', IPython 8's "File <path>:<n>" and "Cell In[<n>], line <n>").
_TB_HEADER = LazyPattern(r"Traceback \(most recent call last\)")
_TB_FRAME = LazyPattern(r'^\s*(?:File "[^"]{1,400}", line \d|File \S{1,400}:\d+|Cell In\s*\[\d+\], line \d)')
# The line that ends a traceback: the exception's class at the line's start (BaseException's subclasses are named
# ...Error, ...Exception, ...Exit, ...Interrupt by Python's convention), then ": message" or nothing.
_TB_END = LazyPattern(
    r"^(?P<exc>(?:[A-Za-z_]\w{0,60}\.){0,8}[A-Z]\w{0,60}(?:Error|Exception|Exit|Interrupt))(?::\s*(?P<msg>.*))?$"
)
# Python went on past it: sys.unraisablehook prints "Exception ignored in: <obj>" above the traceback of an exception
# raised in a finaliser or at interpreter exit (Python's docs, sys.unraisablehook), which nothing could catch and which
# stopped nothing (pytorch/pytorch#6461: DataLoaderIter.__del__'s ImportError "at the end of the script execution";
# ultralytics/yolov5#8401: StorageWeakRef.__del__'s AttributeError after "Results saved to ...").
_IGNORED_IN = LazyPattern(r"^Exception ignored in\b")
# An exception that is not a fault: the person stopping the run (Ctrl-C raises KeyboardInterrupt), a program exiting by
# its own choice (SystemExit, GeneratorExit).
_NOT_A_FAULT = frozenset({"KeyboardInterrupt", "SystemExit", "GeneratorExit"})
# An assertion a build makes of itself ("AssertionError: Unable to pre-compile async_io": DeepSpeed's setup.py aborts
# with an assertion where an op it was asked to build cannot be, setup.py's abort()): the environment's, not a program's
# fault; the op or extension it names is the subject.
_BUILD_ASSERT = LazyPattern(
    r"\b(?:pre-?compile|compil(?:e|ing|ation)|build(?:ing)?)\s+(?:of\s+)?(?:the\s+)?['\"`]?(?P<op>[\w.+-]{1,80})"
)


def _traceback_end(lines: list[str]) -> int | None:
    """The index of the line that ends the paste's last traceback (the first exception line after its last header or
    frame), or None: none, or one Python went on past (_IGNORED_IN just above its header)."""
    last = next((i for i in range(len(lines) - 1, -1, -1) if _TB_FRAME.match(lines[i]) or _TB_HEADER.search(lines[i])), None)
    if last is None:
        return None
    for i in range(last, max(-1, last - 2000), -1):  # its header, back to the end of any traceback before it
        if _TB_HEADER.search(lines[i]):
            before = next((line.strip() for line in reversed(lines[max(0, i - 3) : i]) if line.strip()), "")
            if _IGNORED_IN.search(before):
                return None
            break
        if i < last and _TB_END.match(lines[i].strip()):
            break
    for i in range(last + 1, min(len(lines), last + 2000)):
        if (m := _TB_END.match(lines[i].strip())) is not None:
            return None if m.group("exc").rsplit(".", 1)[-1] in _NOT_A_FAULT else i
    return None


def _end_subject(line: str, m: re.Match[str]) -> tuple[tuple[str, str], ...]:
    """What a traceback's last line names as failing: (component, component_kind[, folder]) and the exception's type."""
    exc = m.group("exc")
    kind = (("exception", exc.rsplit(".", 1)[-1]),)
    if (missing := _NO_MODULE.search(line)) is not None:
        return (("component", missing.group("module").split(".")[0]), ("component_kind", "module"), *kind)
    if (dll := _DLL.search(line)) is not None:
        folder = (dll.group("path") or "").rstrip("\\/")
        return (("component", dll.group("dll")), ("component_kind", "dll"), *((("folder", folder),) if folder else ()), *kind)
    for form, pattern in _FORMS:  # the loader's own words name the library and the object that needs it
        if form in _LOADER_FORMS and (lm := pattern.search(line)) is not None:
            return (*_component(form, lm, line), *kind)
    if (lib := re.search(r"[^\s:'\"`(]{0,400}?" + _SONAME, line)) is not None:
        # (a path the line gives is asked of ldd: which of that object's own libraries the loader cannot resolve)
        path = (("requirer", lib.group(0)),) if lib.group(0).startswith("/") else ()
        return (("component", lib.group(0).rsplit("/", 1)[-1]), ("component_kind", "library"), *path, *kind)
    if exc.endswith("AssertionError") and (op := _BUILD_ASSERT.search(m.group("msg") or "")) is not None:
        return (("component", op.group("op")), ("component_kind", "build"), *kind)
    if "." in exc and not exc.startswith(("builtins.", "ctypes.")):
        return (("component", exc.split(".")[0]), ("component_kind", "module"), *kind)  # the package whose exception
    return (("component", exc.rsplit(".", 1)[-1]), ("component_kind", "exception"), *kind)


# The forms of the loader's messages, which name the library (and, most, who needs it) whatever library it is.
_LOADER_FORMS = frozenset(
    {"symbol-version", "version-not-found", "loading-shared-libraries", "shared-object-not-opened", "undefined-symbol"}
)


def _end(line: str) -> ErrorEvidence | None:
    """A traceback's last line as a failure, or None where it is a program's own fault (a build's assertion excepted)."""
    m = _TB_END.match(line)
    if m is None:
        return None
    if _GPU_STACK.search(line) and any(f != "exception" and p.search(line) for f, p in _FORMS):
        return None  # a form of the GPU stack's reads it better (the library a loader names, a CUDA error's code)
    build = m.group("exc").endswith("AssertionError") and _BUILD_ASSERT.search(m.group("msg") or "")
    if _PROGRAM_FAULT.search(line) and not build:
        return None
    return ErrorEvidence(KIND, line[:300], (("form", "traceback-end"), *_end_subject(line, m)))


def _p(name: str) -> str:
    """A library's path or soname, as the loader prints it, in the group `name`."""
    return f"(?P<{name}>" + r"[^\s:'\"`(]{0,400}?" + _SONAME + ")"


# An installer's own words that a package did not install ("The installation of nvidia-dali-cuda120 for version 1.44.0
# failed.", NVIDIA's placeholder packages; pip's "Failed building wheel for pycuda"): whatever the package, where its
# line is a failure any program prints (_PROGRAM_FORMS) it names what failed.
_INSTALL_FAILED = LazyPattern(
    r"\b(?:installation|install|build) of (?P<pkg>[A-Za-z][\w.-]{1,80})\b.{0,80}?\bfailed\b"
    r"|\bFailed (?:building wheel for|to build|to install) (?P<pkg2>[A-Za-z][\w.-]{1,80})",
    re.IGNORECASE,
)


# (form, pattern): the first that matches a line decides its component. Each form is named after what the line says.
_FORMS: tuple[tuple[str, LazyPattern], ...] = (
    # glibc's loader: "libcublas.so.11: symbol free_gemm_select version libcublasLt.so.11 not defined in file
    # libcublasLt.so.11 with link time reference" (the library found is another release than the one linked against)
    (
        "symbol-version",
        LazyPattern(_p("requirer") + r": symbol \S{1,300} version \S{1,120} not defined in file (?P<lib>" + _SONAME + ")"),
    ),
    # "libstdc++.so.6: version `GLIBCXX_3.4.30' not found (required by .../libcudnn_ops.so.9)"
    (
        "version-not-found",
        LazyPattern(
            _p("lib") + r": version [`'\u2018][^'\u2019`]{1,80}['\u2019] not found \(required by (?P<requirer>[^)\s]{1,400})\)"
        ),
    ),
    (
        "loading-shared-libraries",
        # (as a title quotes it, also without the program in front: KlausT/ccminer#149, tonyyxliu/CUHKSZ-CSC4005#69)
        LazyPattern(r"(?:(?P<requirer>[^\s:'\"`]{1,400}): |^\s*)error while loading shared libraries: (?P<lib>" + _SONAME + ")"),
    ),
    ("shared-object-not-opened", LazyPattern(_p("lib") + r": cannot open shared object file")),
    ("undefined-symbol", LazyPattern(_p("lib") + r": undefined symbol: \S")),
    (
        "library-not-loaded",
        LazyPattern(
            r"(?:could not|unable to|failed to|cannot|can't) (?:load|open|find|dlopen)(?: the)?(?: dynamic)?(?: shared)? "
            r"(?:library|libraries|module)[:\s]+['\"`]?(?P<lib>[\w.+-]{1,120}?\.(?:so(?:\.\w{1,12}){0,4}|dll|dylib))",
            re.IGNORECASE,
        ),
    ),
    (
        "windows-module",
        LazyPattern(
            r"WinError (?:126|127|193)|specified (?:module|procedure) could not be found|is not a valid Win32 application",
            re.IGNORECASE,
        ),
    ),
    ("linker", LazyPattern(r"\bld(?:\.\w+)?: cannot find -l(?P<lib>[\w+.-]{1,80})")),
    ("nvcc", LazyPattern(r"\bnvcc fatal\s*:")),
    ("daemon", LazyPattern(r"Error response from daemon: \S")),
    (
        "pod",
        LazyPattern(
            r"^\s*(?P<pod>[a-z0-9][a-z0-9.-]{0,252})\s+\d+/\d+\s+(?:CrashLoopBackOff|Error|ImagePullBackOff|ErrImagePull|"
            r"CreateContainerError|CreateContainerConfigError|RunContainerError|Init:\S+)\s"
            r"|\b(?:FailedScheduling|UnexpectedAdmissionError|FailedCreatePodSandBox|Back-off restarting failed container)\b"
        ),
    ),
    (
        "cuda-error",
        LazyPattern(
            r"(?P<code>\bCUDA_ERROR_[A-Z_]{2,60}\b|\bcudaError[A-Z]\w{2,60}\b)|\bCUDA error(?::\s*(?P<said>[\w ]{3,60})| \d)"
        ),
    ),
    ("tensorrt", LazyPattern(r"\[TRT\] \[E\]|\[TRT\]\s*\[ERROR\]")),
    # A tool's own error line of the stack, quoted in prose or printed ("ERROR: Unable to delete
    # '/usr/lib/x86_64-linux-gnu/libnvidia-cfg.so.440.44' (Device or resource busy).", NVIDIA's installer)
    ("error-line", LazyPattern(r"(?:^|[\s\"'`])(?:ERROR|FATAL)\s*:\s+\S")),
    # An installer's own words that a package of the stack did not install ("The installation of nvidia-dali-cuda120 for
    # version 1.44.0 failed.", NVIDIA's placeholder packages; pip's "Failed building wheel for pycuda")
    ("install-failed", _INSTALL_FAILED),
    # The last line of a Python traceback ("numba.cuda.cudadrv.runtime.CudaRuntimeAPIError: [35] ...", "ImportError:
    # libcudnn.so.8: ..."), also quoted in prose between backticks.
    ("exception", LazyPattern(r"(?:^|[\s`'\"(])(?P<exc>(?:[A-Za-z_]\w{0,60}\.){0,8}[A-Z]\w{0,60}(?:Error|Exception)): \S")),
    # A warning that the GPU is not there for the program ("UserWarning: User provided device_type of 'cuda', but CUDA
    # is not available", XGBoost's "No visible GPU is found, setting device to CPU")
    (
        "gpu-unavailable-warning",
        LazyPattern(
            r"Warning\b.{0,200}?(?:(?:CUDA|GPU)s?\b.{0,80}?\b(?:is not available|not found|not compiled|could not be found)"
            r"|\bno (?:visible |usable |available )?(?:CUDA|GPU))",
            re.IGNORECASE,
        ),
    ),
)
# Failures any program prints, whatever it names (issues 28 and 31 item 2: a configure that stops, a compiler's or
# linker's error, a process the kernel killed, a segmentation fault, an application's own log line at ERROR level).
# Read on every line, not only on those that name the GPU stack: the failure is shown, so a report over it is never a
# clean bill. Tried before _FORMS; a form's subject (what the asks follow, gpudoctor.pasted.ask) is read by _subject.
_PROGRAM_FORMS: tuple[tuple[str, LazyPattern], ...] = (
    # CMake's error and its summary (Kitware/CMake Source/cmMessenger.cxx @01e76885: printMessagePreamble's "CMake Error",
    # PrintBacktraceTitle's " at <file>:<line>"; cmGlobalGenerator::Configure's progress line, "Configuring done" or
    # "Configuring incomplete, errors occurred!"), with or without the status prefix "-- "
    (
        "configure",
        LazyPattern(r"^(?:-- )?CMake Error\b|^(?:-- )?Configuring incomplete, errors occurred"),
    ),
    # gcc's, clang's and nvcc's "<file>:<line>[:<col>]: [fatal] error:", MSVC's "<file>(<line>): [fatal] error C1083:",
    # collect2's "ld returned 1 exit status", a header not found, ninja's stop, setuptools' "error: command '...' failed"
    (
        "compiler",
        LazyPattern(
            r"^\S{1,300}\.(?:c|cc|cpp|cxx|cu|cuh|h|hpp|hxx|inl)(?::\d+(?::\d+)?|\(\d+\)):\s+(?:fatal\s+)?error\b"
            r"|^collect2(?:\.exe)?: error: ld returned|\bfatal error: [\w./+-]{1,120}: No such file or directory"
            r"|^ninja: build stopped: subcommand failed|^error: command '[^']{1,300}' failed with exit (?:code|status) [1-9]"
        ),
    ),
    # the kernel's OOM killer (mm/oom_kill.c: "Out of memory: Killed process %d (%s)"), the shell's "Killed", an exit
    # status of SIGKILL (128 + 9 from a shell or docker, -9 from Python's subprocess)
    (
        "killed",
        LazyPattern(
            r"^Killed\s*$|\bOut of memory: Kill(?:ed)? process\b|\boom-kill(?:er)?\b|\bSignals\.SIGKILL\b"
            r"|\b(?:exit(?:ed)?|returned|died)(?: with)?(?: exit)? (?:code|status)[:= ]*(?:137|-9)\b",
            re.IGNORECASE,
        ),
    ),
    # a segmentation fault: the shell's words, the kernel's log line ("<comm>[<pid>]: segfault at <addr> ... in <lib>",
    # arch/x86/mm/fault.c), Python's faulthandler, an exit status of SIGSEGV (128 + 11, -11)
    (
        "segfault",
        LazyPattern(
            r"\bSegmentation fault\b|\bSIGSEGV\b|\bsegfault at\b"
            r"|\b(?:exit(?:ed)?|returned|died)(?: with)?(?: exit)? (?:code|status)[:= ]*(?:139|-11)\b",
            re.IGNORECASE,
        ),
    ),
    # an application's own log line at ERROR level: a timestamp then the level (Python's logging, Go's and Rust's
    # loggers, "[ERROR]"), logfmt's level=error, or a line that starts with the level and a colon
    (
        "log-error",
        LazyPattern(
            r"^\W{0,3}\d{4}[-/]\d\d[-/]\d\d[T ][\d:.,]{5,20}\S{0,8}\s{1,4}(?:[|\[-]\s{0,2})?(?:ERROR|CRITICAL|FATAL)\b"
            r"|^\[(?:ERROR|FATAL|CRITICAL)\]|\blevel=(?:error|fatal)\b|^(?:ERROR|FATAL|error|fatal):\s{1,4}\S"
        ),
    ),
)
# The plain words one of _PROGRAM_FORMS needs, looked for before its patterns run on a line (tests/pasted/test_big_paste.py).
# A framework's own list of the devices it sees, answered without a GPU: TensorFlow's tf.config.list_physical_devices
# printed as a list of PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU') (tensorflow/python/eager/
# context.py's PhysicalDevice namedtuple repr), only CPUs, or empty where the GPUs were asked for. Read below its query
# (a few lines up: "When I run `tf.config.list_physical_devices(None)` I get", a REPL's prompt), a query for all
# devices or for the GPUs, never for the CPUs (whose list holds only CPUs on every machine). Markdown's emphasis and code
# quotes around the answer are the paste's own markup.
_DEVICE_LIST = LazyPattern(r"\[\s*(?:PhysicalDevice\(name='/physical_device:CPU:\d{1,3}',\s*device_type='CPU'\),?\s*){0,64}\]")
_DEVICE_QUERY = LazyPattern(
    r"list_physical_devices\(\s*(?:None|device_type\s*=\s*None|['\"]GPU['\"]|device_type\s*=\s*['\"]GPU['\"])?\s*\)"
)
# A program's own log of the device it chose, the CPU ("**>> Using device_type cpu**", InvokeAI's start-up; "Using torch
# device: CPU"): the program did not reach a GPU. A failure only where the paste names an NVIDIA GPU
# (gpudoctor.checks.reported judges it: on a machine without one it is how the program runs). Not the reporter's wish
# ("how do I use device cpu") nor a setting in code: the line is the log's own, "Using" first after its markup and prefix.
_CPU_CHOSEN = LazyPattern(r"(?:^|>>\s*|-->\s*|\]\s*)Using (?:torch |the )?device(?:_type)?\s*[:=]?\s*['\"]?(?i:cpu)['\"]?\.?$")
_MARKUP = "*`>_ \t"
_QUERY_ABOVE = 4  # the query's line this many non-empty lines up at most


def _device_list_without_gpu(lines: list[str], i: int) -> ErrorEvidence | None:
    """TensorFlow's device list on line `i` without a GPU, below its query for all devices or the GPUs, or None."""
    line = lines[i].strip(_MARKUP)
    if not line.startswith("[") or _DEVICE_LIST.fullmatch(line) is None:
        return None
    above = [x for x in lines[max(0, i - 40) : i] if x.strip()][-_QUERY_ABOVE:]
    if not any(_DEVICE_QUERY.search(x) for x in above):
        return None
    form = (("form", "device-list-no-gpu"), ("component", "tensorflow"), ("component_kind", "module"))
    return ErrorEvidence(KIND, lines[i][:300], form)


_PROGRAM_START = LazyPattern(
    r"CMake Error|Configuring incomplete|error|Killed|kill|SIGKILL|SIGSEGV|Segmentation|segfault|137|139|-9\b|-11\b"
    r"|ninja: build stopped|ERROR|FATAL|CRITICAL|fatal|Mem\b",
    re.IGNORECASE,
)
# The machine's memory as top and free print it (procps: top's summary "MiB Mem :  <total> total,  <free> free,
# <used> used,  <buff/cache> buff/cache"; free's "Mem:  <total>  <used>  <free>  <shared>  <buff/cache>  <available>",
# with -h its units Ki, Mi, Gi, Ti): what is left to allocate is top's free and buff/cache, free's available.
_TOP_MEM = LazyPattern(
    r"^(?:[KMGT]iB )?Mem\s*:\s*(?P<total>\d[\d.]*)[+]?\s+total,\s+(?P<free>\d[\d.]*)[+]?\s+free,"
    r"\s+\d[\d.]*[+]?\s+used,\s+(?P<cache>\d[\d.]*)[+]?\s+buff/cache\b"
)
_FREE_MEM = LazyPattern(
    r"^Mem:\s+(?P<total>\d[\d.,]*)(?P<tu>[KMGT]i?)?\s+\S+\s+\S+\s+\S+\s+\S+\s+(?P<avail>\d[\d.,]*)(?P<au>[KMGT]i?)?\s*$"
)
_UNITS = {"": 1, "K": 1, "Ki": 1, "M": 1024, "Mi": 1024, "G": 1024**2, "Gi": 1024**2, "T": 1024**3, "Ti": 1024**3}
# Left to allocate below this share of the memory: it is exhausted (the kernel reclaims and then kills, mm/oom_kill.c)
_EXHAUSTED_SHARE = 0.02


def _memory_exhausted(line: str) -> bool:
    """Whether a top or free line shows the machine's memory all but used up (below _EXHAUSTED_SHARE left)."""
    try:
        if (m := _TOP_MEM.search(line)) is not None:
            total, left = float(m.group("total")), float(m.group("free")) + float(m.group("cache"))
        elif (m := _FREE_MEM.search(line)) is not None:
            total = float(m.group("total").replace(",", ".")) * _UNITS[m.group("tu") or ""]
            left = float(m.group("avail").replace(",", ".")) * _UNITS[m.group("au") or ""]
        else:
            return False
    except ValueError:  # ("1.2.3": a number no tool prints)
        return False
    return total > 0 and left < total * _EXHAUSTED_SHARE


# The header a compiler could not open (gcc's and clang's "fatal error: cudnn.h: No such file or directory")
_HEADER_MISSING = LazyPattern(r"\bfatal error: (?P<header>[\w./+-]{1,120}): No such file or directory")
# A configure's subject: what it could not find, in its own status lines ("-- Could NOT find CUDNN", "cuDNN not found")
# or in the error's message below it ("Install cuDNN using the above commands"), read this many lines around it.
_CONFIGURE_AROUND = 40
_NOT_FOUND_STATUS = LazyPattern(r"\bCould NOT find (?P<pkg>[\w.+-]{1,80})|^(?:-- )?(?P<pkg2>[\w.+-]{1,40}) not found\b")
# CMake's own pointer to its build folder (See also "<dir>/CMakeFiles/CMakeOutput.log"): where its cache is.
_CMAKE_FILES = LazyPattern(r'See also "(?P<dir>[^"]{1,400}?)[\\/]CMakeFiles[\\/]CMake(?:Output|Error)\.log"')


_DLL = LazyPattern(r"(?P<path>(?:[A-Za-z]:)?[^\s'\"`]{0,400}?[\\/])?(?P<dll>[\w.+-]{1,120}?\.(?:dll|pyd))\b", re.IGNORECASE)
_NO_MODULE = LazyPattern(r"No module named '(?P<module>[\w.]{1,120})'")
_SITE_MODULE = LazyPattern(r"(?:site|dist)-packages[\\/](?P<module>[A-Za-z_]\w{0,80})")
_CONTAINER_FOR_POD = LazyPattern(r"\bpod \"?(?P<pod>[a-z0-9][a-z0-9.-]{0,252})")
# The words of the GPU stack a line names, as the component where no library, DLL or module is named: most specific
# first (cuDNN fails inside CUDA's words, NCCL inside the GPU's).
_STACK_WORDS = (
    ("tensorrt", re.compile(r"tensorrt|nvinfer|\[TRT\]", re.IGNORECASE)),
    ("cudnn", re.compile(r"cudnn", re.IGNORECASE)),
    ("cublas", re.compile(r"cublas", re.IGNORECASE)),
    ("nccl", re.compile(r"nccl", re.IGNORECASE)),
    ("nvml", re.compile(r"nvml|nvidia-ml", re.IGNORECASE)),
    ("nvcc", re.compile(r"\bnvcc\b", re.IGNORECASE)),
    ("cuda", re.compile(r"cuda", re.IGNORECASE)),
    ("gpu", re.compile(r"\bGPUs?\b|nvidia", re.IGNORECASE)),
)


# What each form says failed, for the finding's title ({c}: the component).
MEANS = {
    "symbol-version": "the loader found a {c} of another release than the one linked against",
    "version-not-found": "{c} lacks a symbol version a library needs",
    "loading-shared-libraries": "a program could not load {c}",
    "shared-object-not-opened": "{c} could not be loaded",
    "undefined-symbol": "{c} lacks a symbol a library needs",
    "library-not-loaded": "{c} could not be loaded",
    "windows-module": "Windows could not load {c} or a DLL it needs",
    "linker": "the linker could not find {c}",
    "nvcc": "nvcc stopped",
    "daemon": "the docker daemon refused the request",
    "pod": "the pod {c} failed",
    "cuda-error": "a CUDA call failed ({c})",
    "tensorrt": "TensorRT failed",
    "error-line": "a tool of the GPU stack reported an error",
    "install-failed": "{c} did not install",
    "exception": "{c} raised an error",
    "traceback-end": "the program stopped on an error no entry knows ({c})",
    "gpu-unavailable-warning": "{c} found no usable GPU",
    "device-list-no-gpu": "{c} lists no GPU among the devices it sees",
    "cpu-device-chosen": "{c} chose the CPU as its device",
    "configure": "the build's configure stopped ({c})",
    "compiler": "the build's compiler or linker failed ({c})",
    "killed": "the process was killed (the kernel's OOM killer or a SIGKILL)",
    "segfault": "{c} crashed with a segmentation fault",
    "log-error": "{c} logged an error",
    "memory-exhausted": "the machine's memory ran out (top or free shows almost none left)",
    "hang-said": "the reporter says {c} hangs",
    "nan-said": "the reporter says {c} produces NaN or blank output",
    "fails-said": "the reporter says {c} fails",
    "cpu-said": "the reporter says {c} runs on the CPU, not the GPU",
    "error-said": "the reporter says {c} fails with an error the paste does not show",
    "slow-said": "the reporter says {c} runs much slower under WSL than on Windows",
    "error-in-picture": "the reporter shows {c}'s error only as a picture",
    "error-introduced": "{c} failed with the error the reporter quotes, which no entry knows",
}
# The forms that are a reporter's words, not a line the program printed: the failing command's output is asked.
SAID = frozenset({"hang-said", "nan-said", "fails-said", "cpu-said", "error-said", "error-in-picture", "slow-said"})
# The forms any program prints (_PROGRAM_FORMS), whatever it names: no catalogue entry knows their line.
PROGRAM_FORMS = frozenset({*(form for form, _ in _PROGRAM_FORMS), "memory-exhausted"})


def _stack_word(line: str) -> str:
    return next((name for name, pattern in _STACK_WORDS if pattern.search(line)), "gpu")


def _component(form: str, m: re.Match[str], line: str) -> tuple[tuple[str, str], ...]:
    """The failing component the line names, by its form: (component, component_kind[, requirer])."""
    groups = m.groupdict()
    if groups.get("lib"):
        lib = groups["lib"].rsplit("/", 1)[-1]
        if form == "linker":
            lib = f"lib{lib}.so"
        kind = "dll" if lib.lower().endswith(".dll") else "library"
        requirer = groups.get("requirer")
        return (("component", lib), ("component_kind", kind), *((("requirer", requirer),) if requirer else ()))
    dll = _DLL.search(line) if form in ("windows-module", "exception") else None
    if dll is not None:
        folder = (dll.group("path") or "").rstrip("\\/")
        return (("component", dll.group("dll")), ("component_kind", "dll"), *((("folder", folder),) if folder else ()))
    if form == "daemon":
        return (("component", "docker"), ("component_kind", "daemon"))
    if form == "pod":
        pod = groups.get("pod") or ((p := _CONTAINER_FOR_POD.search(line)) and p.group("pod")) or ""
        return (("component", pod or "pod"), ("component_kind", "pod"))
    if form == "cuda-error":  # the error code (cudaErrorUnknown), or CUDA's words after "CUDA error:"
        said = (groups.get("code") or groups.get("said") or "").strip()
        return (("component", said or "cuda"), ("component_kind", "runtime"))
    if form == "tensorrt":
        return (("component", "tensorrt"), ("component_kind", "module"))
    if form == "install-failed":  # the package the installer could not install: its own asks are the installer's
        return (("component", groups.get("pkg") or groups.get("pkg2") or "package"), ("component_kind", "package"))
    if form == "nvcc":
        return (("component", "nvcc"), ("component_kind", "toolkit"))
    if (missing := _NO_MODULE.search(line)) is not None:
        return (("component", missing.group("module").split(".")[0]), ("component_kind", "module"))
    exc = groups.get("exc") or ""
    if "." in exc and not exc.startswith(("builtins.", "ctypes.")):
        return (("component", exc.split(".")[0]), ("component_kind", "module"))  # the package whose exception it is
    if (site := _SITE_MODULE.search(line)) is not None:
        return (("component", site.group("module")), ("component_kind", "module"))
    return (("component", _stack_word(line)), ("component_kind", "runtime"))


# What a reporter's sentence is about, which decides what to ask (gpudoctor.pasted.ask): a library it names (where the
# copies are), an install (which interpreter and pip ran it), a container or a job (asked inside it), else the device
# (what the process sees: the family of a GPU not reached, gpudoctor.checks.symptoms).
_SAID_LIBRARY = LazyPattern(r"(?P<lib>[\w.+-]{1,120}?\.(?:dll|so(?:\.\d{1,6}){0,3}))\b", re.IGNORECASE)
_SAID_INSTALL = LazyPattern(r"\b(?:pip3?|conda|mamba|install(?:s|ing|ed|ation)?|wheel)\b", re.IGNORECASE)
_SAID_CONTAINER = LazyPattern(r"\b(?:docker|containers?|pods?|kubernetes|k8s|slurm|singularity|apptainer)\b", re.IGNORECASE)


def _said_subject(line: str) -> tuple[tuple[str, str], ...]:
    if (lib := _SAID_LIBRARY.search(line)) is not None:
        return (("subject", "library"), ("library", lib.group("lib")))
    if _SAID_INSTALL.search(line):
        return (("subject", "install"),)
    return (("subject", "container" if _SAID_CONTAINER.search(line) else "device"),)


def _said_component(line: str) -> tuple[tuple[str, str], ...]:
    """What a reporter's sentence names as failing: the framework it names, else the program (the stack's words in
    such a sentence say where it runs, "with 4 GPUs", "with CUDA", not what failed), and what it is about."""
    m = _SAID_FRAMEWORK.search(line)
    word = m.group(0).lower().removeprefix("py") if m else "the program"
    return (("component", word), ("component_kind", "said"), *_said_subject(line))


def _said(
    line: str, after: str, below: Sequence[str] = (), about_gpu: bool = False, known: frozenset[str] = frozenset()
) -> ErrorEvidence | None:
    """A failure the reporter tells in words on this line (after: the next non-empty line; below: the paste's lines
    under it; about_gpu: whether the paste names the GPU stack or a GPU framework anywhere; known: the lines read
    already), or None."""
    # (code the sentence quotes between backticks is the reporter's quotation, not a line the program printed)
    if (_SAID_OVER.search(line) and not _CONTRAST.search(line)) or _PRINTED.search(_QUOTED.sub("", line)):
        return None
    if _ERROR_INTRO.search(line) and _PICTURE.search(after) and not _PICTURE.search(line):
        return ErrorEvidence(KIND, line[:300], (("form", "error-in-picture"), *_said_component(line)))
    stated = _statements(line)
    if not _SAID_SUBJECT.search(stated):
        return _error_told(line, stated, below, known) if about_gpu else None
    if _NOT_HAPPENING.search(stated):
        return None
    for form, pattern in _SAID_FORMS:
        if pattern.search(_COUNTER_STUCK.sub("", stated) if form == "hang-said" else stated):
            if form == "error-said" and _SHOWN_NEXT.search(after):
                return None  # the error told is on the next line: read as what it is, or the program's own
            if form == "cpu-said" and GPU_GRAPH.search(line):
                return None  # seen only in Task Manager's graphs, which do not show CUDA's compute (GPU_GRAPH)
            return ErrorEvidence(KIND, line[:300], (("form", form), *_said_component(line)))
    return None


def _one_line(raw_below: Sequence[str]) -> str | None:
    """The one line of output a sentence introduces (raw_below: the paste's lines under it), or None: its first line
    past a fence where the output ends there (a blank line, a fence, the paste's end, or the reporter's question next),
    and is no command, code or warning."""
    at = next((n for n, x in enumerate(raw_below[:_BELOW]) if x and not _FENCE.match(x)), None)
    if at is None:
        return None
    shown, after = raw_below[at], raw_below[at + 1 : at + 2]
    if _NOT_HAPPENING.search(shown) or _COMMAND.match(shown) or _WARNING_SHOWN.search(shown):
        return None
    if not after or not after[0] or _FENCE.match(after[0]) or after[0].endswith("?"):
        return shown
    return None


def _error_told(line: str, stated: str, raw_below: Sequence[str], known: frozenset[str]) -> ErrorEvidence | None:
    """An error the reporter says they hit, in a sentence that names nothing of the GPU stack, in a paste that does
    ("when I start the server it raises an error" under an nvidia-smi table or a CUDA install): the error the paste is
    about. Where the sentence introduces it with a colon and the line below is no command, code or warning, that line is
    the error, which no entry knows (form error-introduced); else its line is not in the paste (cut, or left out: form
    error-said). Not where an error is shown below the sentence (below: its next lines past the code fences) that is
    read already or that is a program's own fault, nor where what it calls an error is a warning shown below."""
    if not dict(_SAID_FORMS)["error-said"].search(stated) or not _TOLD_BY.search(stated) or _LISTING.match(line):
        return None
    # (a link the sentence gives is no comment: _NOT_HAPPENING's "//" is a line of code's)
    if _NOT_HAPPENING.search(_LINK.sub("", stated)):
        return None
    below = [x for x in raw_below[: 2 * _BELOW] if x and not _FENCE.match(x)][:_BELOW]
    if any(_SHOWN_BELOW.search(x) or _PROGRAM_FAULT.search(x) for x in below):
        return None
    if any(_WARNING_SHOWN.search(x) for x in below[:_INTRODUCED]):
        return None  # the output the sentence introduces is a warning (a warning further down is another line's)
    if below and _SHOWN_NEXT.search(below[0]):
        return None
    # read already, as what it is (a catalogue entry's reading, a program's own fault): a line read is kept whole or cut
    # at 300 characters (an exact lookup, so that a paste of many such sentences stays linear)
    if any(x in known or x[:300] in known for x in below):
        return None
    if stated.rstrip(" *`_").endswith(":") and (shown := _one_line(raw_below)) is not None:
        return ErrorEvidence(KIND, shown[:300], (("form", "error-introduced"), *_said_component(shown)))
    return ErrorEvidence(KIND, line[:300], (("form", "error-said"), *_said_component(line)))


# What a program form's line says failed, by form: (component_kind, its component where the line names none of the stack)
_PROGRAM_SUBJECTS = {
    "configure": ("configure", "cmake"),
    "compiler": ("build", "the compiler"),
    "killed": ("killed", "the process"),
    "segfault": ("crash", "the program"),
    "log-error": ("log", "the program"),
    "memory-exhausted": ("memory", "the machine's memory"),
}


def _program_failure(lines: list[str], i: int) -> ErrorEvidence | None:
    """A failure any program prints (_PROGRAM_FORMS) on line `i`, with what it is about, or None: not a line of code or
    of a lower log level, not the reporter's words that it is over or a question about it, not a program's own fault
    (the kernel's OOM killer excepted: the machine's memory, not the GPU's, ran out)."""
    line = lines[i]
    if _NOT_HAPPENING.search(line) or (_SAID_OVER.search(line) and not _CONTRAST.search(line)) or line.endswith("?"):
        return None
    if _GPU_STACK.search(line) and any(p.search(line) for _, p in _FORMS):
        return None  # a form of the GPU stack's reads it better (the component it names): read_failure_lines' next loop
    if "Mem" in line and _memory_exhausted(line):
        kind, component = _PROGRAM_SUBJECTS["memory-exhausted"]
        return ErrorEvidence(KIND, line[:300], (("form", "memory-exhausted"), ("component", component), ("component_kind", kind)))
    for form, pattern in _PROGRAM_FORMS:
        if not pattern.search(line):
            continue
        if form != "killed" and _PROGRAM_FAULT.search(line):
            return None
        if (installed := _INSTALL_FAILED.search(line)) is not None:
            # an installer's words name the package it could not install: its asks are the installer's
            return ErrorEvidence(KIND, line[:300], (("form", "install-failed"), *_component("install-failed", installed, line)))
        kind, component = _PROGRAM_SUBJECTS[form]
        extra: tuple[tuple[str, str], ...] = ()
        if form == "configure":
            near = lines[max(0, i - _CONFIGURE_AROUND) : i + 8]
            named = [x for x in near if _NOT_FOUND_STATUS.search(x) and _GPU_STACK.search(x)]
            below = [x for x in lines[i + 1 : i + 6] if _GPU_STACK.search(x)]
            if named or below:
                component = _stack_word((named or below)[-1])
            folder = next((f for x in lines[i : i + _CONFIGURE_AROUND] if (f := _CMAKE_FILES.search(x))), None)
            extra = (("folder", folder.group("dir")),) if folder is not None else ()
        elif form == "compiler" and (header := _HEADER_MISSING.search(line)) is not None:
            kind, component = "header", header.group("header")
        elif _GPU_STACK.search(line):
            component = _stack_word(line)
        return ErrorEvidence(KIND, line[:300], (("form", form), ("component", component), ("component_kind", kind), *extra))
    return None


# A sentence's end in prose, English or Chinese (the full-width stop, exclamation and question marks end a sentence
# with no space after them).
_PROSE_END = LazyPattern(r"(?<=[.!?])\s+|(?<=[。！？])")


def _without_fault_sentences(line: str) -> str:
    """A line of several sentences without those that name a program's own fault (a sentence about the code's dtype
    beside "但运行时只能cpu推理", plans19/1942: the failure told is the other sentence's), or "" where none is left or
    the line is one sentence (a program's fault told is no failure of the environment)."""
    parts = [x for x in _PROSE_END.split(line) if x.strip()]
    rest = [x for x in parts if not _PROGRAM_FAULT.search(x)]
    return " ".join(rest) if rest and len(rest) < len(parts) else ""


def read_failure_lines(lines: Iterable[str], known: frozenset[str] = frozenset()) -> list[ErrorEvidence]:
    """The failure lines among `lines` that name the GPU stack and are not a program's own fault, skipping any line in
    `known` (read already, by the catalogue or an extractor, whose reading is the better one). Where no such line is
    printed, the reporter's words that it failed (the `said` forms), the first one only: the rest retell it."""
    out: list[ErrorEvidence] = []
    said: ErrorEvidence | None = None
    seen: set[str] = set()
    raw_lines = list(lines)
    stripped = [raw.strip() for raw in raw_lines]
    end = _traceback_end(raw_lines)
    ended = _end(stripped[end][:_MAX_LINE]) if end is not None else None
    if ended is not None and not any(k in ended.line or ended.line in k for k in known):
        # the line the program stopped on, whatever it names: read first, as the failure the report is about
        out.append(ended)
        seen.add(stripped[end or 0])
    following = [""] * len(stripped)
    nxt = ""
    for i in range(len(stripped) - 1, -1, -1):  # each line's next non-empty line
        following[i] = nxt
        nxt = stripped[i] or nxt
    # (whether the paste names the GPU stack or a GPU framework at all: a sentence telling an error without naming it
    # is then about it, _error_told)
    about_gpu = _SAID_SUBJECT.search("\n".join(stripped)) is not None
    for i, line in enumerate(stripped):
        if not line or len(line) > _MAX_LINE:
            continue
        if "[" in line and line not in seen and (listed := _device_list_without_gpu(stripped, i)) is not None:
            seen.add(line)
            out.append(listed)
            continue
        if "sing" in line and line not in seen and _CPU_CHOSEN.search(line.strip(_MARKUP)):
            seen.add(line)
            chosen = (("form", "cpu-device-chosen"), ("component", "the program"), ("component_kind", "runtime"))
            out.append(ErrorEvidence(KIND, line[:300], chosen))
            continue
        if (
            _PROGRAM_START.search(line)
            and line not in seen
            and not any(k in line or line in k for k in known)
            and (shown := _program_failure(stripped, i)) is not None
        ):
            seen.add(line)
            out.append(shown)
            if len(out) >= _MAX_FOUND:
                break
            continue
        if _PROGRAM_FAULT.search(line):
            if said is None and (rest := _without_fault_sentences(line)):
                told = _said(rest, following[i], stripped[i + 1 : i + 1 + 2 * _BELOW], about_gpu, known)
                said = ErrorEvidence(KIND, line[:300], told.values) if told is not None else None  # the line as it was
            continue
        if said is None:
            # (a line read already only described: "initializing ddp", "i have cuda 10.1"; the reporter's sentence
            # around it can still tell the failure. A picture's line holds its address: _NOT_HAPPENING's "//" is tried
            # after the picture.)
            # (the lines below it: where the error it tells is shown, _error_told)
            said = _said(line, following[i], stripped[i + 1 : i + 1 + 2 * _BELOW], about_gpu, known)
        if line in seen or any(k in line or line in k for k in known):
            continue
        if not _GPU_STACK.search(line) or _NOT_HAPPENING.search(line):
            continue
        for form, pattern in _FORMS:
            m = pattern.search(line)
            if m is None:
                continue
            seen.add(line)
            out.append(ErrorEvidence(KIND, line[:300], (("form", form), *_component(form, m, line))))
            break
        if len(out) >= _MAX_FOUND:
            break
    return out or ([said] if said is not None else [])
