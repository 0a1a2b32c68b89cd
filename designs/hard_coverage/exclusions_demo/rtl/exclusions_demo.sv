// A 16-bit accumulator whose source holds points no stimulus can reach, each for a reason a
// tool can prove: the default of a unique case that lists every op, a branch that MODE = 1
// rules out, and a hold input its stage gets tied to 0. One arm is reachable but rare: data
// equal to the magic value BEEF.
module exclusions_demo #(
    parameter int MODE = 1  // 1: accumulate; 2 (not built here): pinned at all ones
) (
    input  logic        clk,
    input  logic        rst_n,
    input  logic [1:0]  op,
    input  logic [15:0] data,
    output logic [15:0] acc,
    output logic [15:0] staged,
    output logic        magic,
    output logic [1:0]  last_op
);
    typedef enum logic [1:0] {OP_ADD = 2'd0, OP_SUB = 2'd1, OP_XOR = 2'd2, OP_LOAD = 2'd3} op_t;

    logic [15:0] next;
    op_t         next_kind, kind;  // kind: the last op, by name

    always_comb begin
        unique case (op)
            2'd0: begin next = acc + data; next_kind = OP_ADD; end
            2'd1: begin next = acc - data; next_kind = OP_SUB; end
            2'd2: begin next = acc ^ data; next_kind = OP_XOR; end
            2'd3: begin next = data; next_kind = OP_LOAD; end
            default: begin next = acc; next_kind = OP_ADD; end
        endcase
    end

    always_ff @(posedge clk or negedge rst_n) begin
        if (!rst_n) begin
            acc   <= 16'd0;
            magic <= 1'b0;
            kind  <= OP_ADD;
        end else begin
            acc  <= next;
            kind <= next_kind;
            if (MODE == 2) begin
                acc <= 16'hFFFF;  // MODE 2 pins the accumulator at all ones
            end
            if (data == 16'hBEEF) begin
                magic <= 1'b1;
            end
        end
    end

    always_comb begin
        unique case (kind)
            OP_ADD:  last_op = 2'd0;
            OP_SUB:  last_op = 2'd1;
            OP_XOR:  last_op = 2'd2;
            OP_LOAD: last_op = 2'd3;
            default: last_op = 2'd0;
        endcase
    end

    exclusions_stage u_stage (.clk(clk), .rst_n(rst_n), .d(acc), .hold(1'b0), .q(staged));
endmodule

// One register stage with a hold input; the accumulator ties hold to 0.
module exclusions_stage (
    input  logic        clk,
    input  logic        rst_n,
    input  logic [15:0] d,
    input  logic        hold,
    output logic [15:0] q
);
    always_ff @(posedge clk or negedge rst_n) begin
        if (!rst_n) begin
            q <= 16'd0;
        end else if (hold) begin
            q <= q;
        end else begin
            q <= d;
        end
    end
endmodule
