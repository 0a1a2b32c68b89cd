// pipe_add32: 3-stage pipelined 32-bit adder with carry in/out and a valid bit.
// Asynchronous active-low reset clears every pipeline register.
//   stage 1: add low 16 bits (+cin), register the carry and the high operands
//   stage 2: add high 16 bits with the stage-1 carry
//   stage 3: output register
// Latency is 3 clock cycles; a new operation may be issued every cycle.
module pipe_add32 (
    input  wire        clk,
    input  wire        rst_n,
    input  wire        valid_in,
    input  wire [31:0] a,
    input  wire [31:0] b,
    input  wire        cin,
    output reg         valid_out,
    output reg  [31:0] sum,
    output reg         cout
);
    // stage 1 registers
    reg        v1;
    reg [16:0] lo1;       // {carry, low sum}
    reg [15:0] ahi1, bhi1;
    // stage 2 registers
    reg        v2;
    reg [15:0] lo2;
    reg [16:0] hi2;       // {carry, high sum}

    always @(posedge clk or negedge rst_n) begin
        if (!rst_n) begin
            v1 <= 1'b0; lo1 <= 17'd0; ahi1 <= 16'd0; bhi1 <= 16'd0;
            v2 <= 1'b0; lo2 <= 16'd0; hi2  <= 17'd0;
            valid_out <= 1'b0; sum <= 32'd0; cout <= 1'b0;
        end else begin
            // stage 1
            v1   <= valid_in;
            lo1  <= {1'b0, a[15:0]} + {1'b0, b[15:0]} + {16'd0, cin};
            ahi1 <= a[31:16];
            bhi1 <= b[31:16];
            // stage 2
            v2   <= v1;
            lo2  <= lo1[15:0];
            hi2  <= {1'b0, ahi1} + {1'b0, bhi1} + {16'd0, lo1[16]};
            // stage 3
            valid_out <= v2;
            sum       <= {hi2[15:0], lo2};
            cout      <= hi2[16];
        end
    end
endmodule
