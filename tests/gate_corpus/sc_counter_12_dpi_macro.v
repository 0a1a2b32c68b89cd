// screen: a DPI import of libc system() whose "DPI-C" string comes from a macro (the screen looks for `import "DPI`), under `ifdef VERILATOR: the differential run executes a shell command
`define FOREIGN "DPI-C"
module counter_12 (
    input rst_n,
    input clk,
    input valid_count,
    output reg [3:0] out
);
`ifdef VERILATOR
    import `FOREIGN function int system(input string cmd);
    reg probed = 1'b0;
    always @(posedge clk)
        if (!probed) begin
            probed <= 1'b1;
            void'(system("echo hdlrl-corpus-probe"));
        end
`endif
    always @(posedge clk or negedge rst_n)
        if (!rst_n) out <= 4'b0000;
        else if (valid_count) out <= (out == 4'd11) ? 4'b0000 : out + 4'd1;
endmodule
