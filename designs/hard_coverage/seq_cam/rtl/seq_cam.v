// seq_cam: 4-entry content-addressable table of (key, value) byte pairs.
// op 0 nop, 1 write, 2 lookup, 3 delete (all registered, one per cycle).
// Write: a key already present gets the new value; else the first free entry
// takes it; when all 4 are valid the round-robin victim (repl) is replaced
// and repl advances. Lookup: hit/miss with the value and entry index.
// Delete: invalidates the entry holding the key (if any). Status: count of
// valid entries, a sticky mask of the entries that have hit since reset,
// and hit_recent: the hit entry is the one written by the previous op.
module seq_cam (
    input  wire       clk,
    input  wire       rst_n,
    input  wire [1:0] op,
    input  wire [7:0] key,
    input  wire [7:0] wdata,
    output reg        hit,
    output reg        miss,
    output reg  [7:0] rdata,
    output reg  [1:0] hit_idx,
    output reg        replaced,     // the last write evicted an entry
    output reg        hit_recent,
    output wire [2:0] count,
    output reg  [3:0] hit_seen
);
    localparam [1:0] OP_NOP = 2'd0, OP_WRITE = 2'd1, OP_LOOKUP = 2'd2, OP_DELETE = 2'd3;

    reg [7:0] keys [0:3];
    reg [7:0] vals [0:3];
    reg [3:0] valid;
    reg [1:0] repl;                 // round-robin victim
    reg [1:0] last_wr;              // entry written by the previous op
    reg       last_was_wr;

    // match and free-entry search
    wire [3:0] match = {valid[3] && keys[3] == key, valid[2] && keys[2] == key,
                        valid[1] && keys[1] == key, valid[0] && keys[0] == key};
    wire [1:0] match_idx = match[0] ? 2'd0 : match[1] ? 2'd1 : match[2] ? 2'd2 : 2'd3;
    wire [1:0] free_idx  = !valid[0] ? 2'd0 : !valid[1] ? 2'd1 : !valid[2] ? 2'd2 : 2'd3;
    assign count = {2'b00, valid[0]} + {2'b00, valid[1]} + {2'b00, valid[2]} + {2'b00, valid[3]};

    integer i;
    always @(posedge clk or negedge rst_n) begin
        if (!rst_n) begin
            for (i = 0; i < 4; i = i + 1) begin keys[i] <= 8'd0; vals[i] <= 8'd0; end
            valid <= 4'd0; repl <= 2'd0; last_wr <= 2'd0; last_was_wr <= 1'b0;
            hit <= 1'b0; miss <= 1'b0; rdata <= 8'd0; hit_idx <= 2'd0; replaced <= 1'b0;
            hit_recent <= 1'b0; hit_seen <= 4'd0;
        end else begin
            hit <= 1'b0;
            miss <= 1'b0;
            hit_recent <= 1'b0;
            last_was_wr <= 1'b0;
            case (op)
                OP_WRITE: begin
                    last_was_wr <= 1'b1;
                    replaced <= 1'b0;
                    if (|match) begin
                        vals[match_idx] <= wdata;
                        last_wr <= match_idx;
                    end else if (valid != 4'hF) begin
                        keys[free_idx] <= key;
                        vals[free_idx] <= wdata;
                        valid[free_idx] <= 1'b1;
                        last_wr <= free_idx;
                    end else begin
                        keys[repl] <= key;
                        vals[repl] <= wdata;
                        last_wr <= repl;
                        repl <= repl + 2'd1;
                        replaced <= 1'b1;
                    end
                end
                OP_LOOKUP: begin
                    if (|match) begin
                        hit <= 1'b1;
                        rdata <= vals[match_idx];
                        hit_idx <= match_idx;
                        hit_seen[match_idx] <= 1'b1;
                        hit_recent <= last_was_wr && (last_wr == match_idx);
                    end else begin
                        miss <= 1'b1;
                    end
                end
                OP_DELETE: begin
                    if (|match) valid[match_idx] <= 1'b0;
                end
                OP_NOP: ;
            endcase
        end
    end
endmodule
